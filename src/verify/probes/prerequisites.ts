// Prerequisites made, not borrowed (issue 33 item 4): a request body whose properties name other resources
// (`x-references`: a use case, a speaker, an agent) gets ids of resources that exist for the caller — named on the
// command line (`--ref UseCase=uc_…`), else created through the contract's own create of that schema (its body's
// own references made the same way, a few levels deep); when the rule names states (`x-references` `states`: a
// completed analysis), one of the caller's own in such a state is looked for in its list first — never the
// example's id, which a real backend does not have. What was made is deleted at the end of the run, after every case that needed it. When one cannot be made,
// the cases that needed it are reported as skipped with the reason.
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { Parts } from "../requests/cases.js";
import type { ContractView } from "../requests/contract-view.js";
import { crudGroups } from "./crud.js";
import { answeredJson, caseOf, listOf, listParts, refName, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import type { Operation } from "../types.js";

export interface ReferenceSite {
  /** Property names from the body's root; `[]` marks an array's items. */
  path: string[];
  schema: string;
  states?: string[];
  pointer: string;
  /** The shortest prefix of `path` ending at a property its object does not require: dropping it leaves the reference out. */
  optional?: string[];
}

/** Every property of a body schema (nested objects and array items included) that carries `x-references`. */
export function referenceSites(view: ContractView, schema: Json, path: string[] = [], at = "", optional: string[] | null = null): ReferenceSite[] {
  const s = view.contract.deref(schema);
  const here = schema?.$ref ? schema.$ref : at;
  const out: ReferenceSite[] = [];
  if (!s || typeof s !== "object" || path.length > 6) return out;
  const ref = s["x-references"];
  if (ref?.schema) out.push({ path, schema: ref.schema, ...(ref.states ? { states: ref.states } : {}), pointer: `${here}/x-references`, ...(optional ? { optional } : {}) });
  const required: unknown[] = Array.isArray(s.required) ? s.required : [];
  for (const [name, p] of Object.entries<Json>(s.properties ?? {})) {
    const child = [...path, name];
    out.push(...referenceSites(view, p, child, `${here}/properties/${name}`, optional ?? (required.includes(name) ? null : child)));
  }
  if (s.items) out.push(...referenceSites(view, s.items, [...path, "[]"], `${here}/items`, optional));
  return out;
}

/** `value` without the property at `path` (unchanged when a parent is missing). */
export function without(value: unknown, path: string[]): unknown {
  if (!path.length || !value || typeof value !== "object" || Array.isArray(value)) return value;
  const [head, ...rest] = path as [string, ...string[]];
  const { [head]: inner, ...others } = value as Record<string, unknown>;
  return rest.length ? { ...others, [head]: without(inner, rest) } : others;
}

/** `value` with the id at `path` replaced (an array of ids becomes `[id]`); undefined when a parent is missing. */
export function withId(value: unknown, path: string[], id: string): unknown {
  if (path[0] === "[]") return [id];
  if (!path.length) return id;
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const [head, ...rest] = path as [string, ...string[]];
  const inner = rest[0] === "[]" ? [id] : rest.length ? withId((value as Record<string, unknown>)[head], rest, id) : id;
  return inner === undefined ? undefined : { ...(value as Record<string, unknown>), [head]: inner };
}

/** Is there a value at `path` (an id the example sends)? */
function present(value: unknown, path: string[]): boolean {
  let v = value;
  for (const p of path) {
    if (p === "[]") return Array.isArray(v) && v.length > 0;
    if (!v || typeof v !== "object" || Array.isArray(v)) return false;
    v = (v as Record<string, unknown>)[p];
  }
  return v !== undefined && v !== null;
}

const MAX_DEPTH = 3;

type Made = { id: string } | { reason: string };

export class Prerequisites {
  private readonly made = new Map<string, Promise<Made>>();
  /** What the run created to be referenced, in order (deleted in reverse at the end). */
  private readonly created: Array<{ remove: Operation; idParam: string; id: string; schema: string }> = [];

  constructor(
    private readonly ctx: RoundtripContext,
    /** Ids named on the command line, by schema (`--ref UseCase=uc_…`). */
    private readonly named: Record<string, string> = {},
  ) {}

  /**
   * `parts` with every referenced id its body sends replaced by one that exists (named, or made); or why one
   * could not be had.
   */
  async fill(op: Operation, parts: Parts, depth = 0): Promise<{ parts: Parts } | { reason: string }> {
    const body = parts.body;
    if (!body || !body.mediaType.includes("json")) return { parts };
    let value = body.value;
    const valid = this.ctx.view.bodyValidator(body.media.schema);
    for (const site of referenceSites(this.ctx.view, body.media.schema)) {
      if (!present(value, site.path)) continue;
      // An optional reference is left out rather than made, when the body stays valid without it.
      const left = site.optional ? without(value, site.optional) : undefined;
      if (left !== undefined && valid(left)) {
        value = left;
        continue;
      }
      const got = await this.idOf(site, op, depth);
      if ("reason" in got) return { reason: `${site.path.filter((p) => p !== "[]").join(".")} needs a ${site.schema}: ${got.reason}` };
      value = withId(value, site.path, got.id) ?? value;
    }
    return { parts: { ...parts, body: { ...body, value } } };
  }

  /** An id of a resource of `schema` for `forOp` (a nested list's parent, parents.ts): named, else made once and kept. */
  ensure(schema: string, forOp: Operation): Promise<Made> {
    return this.idOf({ path: [], schema, pointer: "" }, forOp, 0);
  }

  /** An id of `site.schema` (in one of its states, when the rule names some): named, else made once and kept. */
  private idOf(site: ReferenceSite, forOp: Operation, depth: number): Promise<Made> {
    const named = this.named[site.schema];
    if (named) return Promise.resolve({ id: named });
    const key = `${site.schema}\0${(site.states ?? []).join(",")}`;
    let p = this.made.get(key);
    if (!p) this.made.set(key, (p = this.make(site, forOp, depth)));
    return p;
  }

  private async make(site: ReferenceSite, forOp: Operation, depth: number): Promise<Made> {
    // A rule naming states (an agent that is active, an analysis that is completed): one of the caller's own in
    // such a state, from its list, first — a resource made now may take time to get there.
    if (site.states) {
      const found = await this.findInState(site.schema, site.states, forOp);
      if (found) return { id: found };
    }
    if (!this.ctx.allowWrites) return { reason: `making one is a write (--allow-writes), or name one with --ref ${site.schema}=ID` };
    if (depth >= MAX_DEPTH) return { reason: `its prerequisites nest deeper than ${MAX_DEPTH}` };
    const create = this.createOf(site.schema);
    if (!create) return { reason: `the contract has no create of ${site.schema}; name one with --ref ${site.schema}=ID` };
    if (!this.ctx.reach(create)) return { reason: `${create.operationId} is not selected (add it to --operations, give --follow-links, or name one with --ref ${site.schema}=ID)` };
    const example = this.ctx.builder.examples(create)[0];
    if (!example) return { reason: `${create.operationId} has no example to make one from` };
    const filled = await this.fill(create, example, depth + 1);
    if ("reason" in filled) return filled;
    const sent = await sendCase(this.ctx, await caseOf(this.ctx, create, filled.parts, `prerequisite ${site.schema} (for ${forOp.operationId})`));
    const body = answeredJson(sent);
    if (!succeeded(sent) || typeof body?.id !== "string") {
      return { reason: `${create.operationId} answered ${sent.kind === "answered" ? sent.exchange.response.status : sent.reason}` };
    }
    const state = site.states ? Object.values<unknown>(body).find((v) => typeof v === "string" && site.states!.includes(v)) : true;
    if (!state) return { reason: `the ${site.schema} ${create.operationId} made is not ${site.states!.join(" or ")}` };
    const g = crudGroups(this.ctx.view, this.ctx.view.operations).find((x) => x.create === create);
    if (g?.remove) this.created.push({ remove: g.remove, idParam: g.idParam, id: body.id, schema: site.schema });
    return { id: body.id };
  }

  /** The id of one of the caller's resources of `schema` in one of `states`, from the first page of its list. */
  private async findInState(schema: string, states: string[], forOp: Operation): Promise<string | null> {
    const list = listOf(this.ctx.view, schema);
    if (!list || !this.ctx.reach(list)) return null;
    const limit = this.ctx.view.contract.deref(list.parameters.find((p) => p.name === "limit")?.schema)?.maximum ?? 100;
    const base = await listParts(this.ctx, list);
    if (!base) return null;
    const body = answeredJson(await sendCase(this.ctx, await caseOf(this.ctx, list, { ...base, query: { limit } }, `prerequisite ${schema} (for ${forOp.operationId})`)));
    const data: Json[] = Array.isArray(body?.data) ? body.data : [];
    const hit = data.find((d) => typeof d?.id === "string" && Object.values<unknown>(d).some((v) => typeof v === "string" && states.includes(v)));
    return hit?.id ?? null;
  }

  /** The create whose success answers the schema (`Agent` → `createAgent`). */
  private createOf(schema: string): Operation | undefined {
    return this.ctx.view.operations.find((op) => {
      if (op.method !== "post" || op.template.endsWith("}")) return false;
      const content = this.ctx.view.declared(op, op.successCode)?.content["application/json"];
      return refName(content?.schema) === schema;
    });
  }

  /** Deletes what was made, last made first (after every case that needed it). */
  async cleanUp(): Promise<void> {
    for (const m of this.created.reverse()) {
      if (!this.ctx.reach(m.remove)) continue;
      const parts = this.ctx.builder.examples(m.remove)[0]!;
      await sendCase(this.ctx, await caseOf(this.ctx, m.remove, { ...parts, path: { ...parts.path, [m.idParam]: m.id } }, `prerequisite ${m.schema}: delete`));
    }
  }
}
