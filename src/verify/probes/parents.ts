// Parents of nested lists (issue 32): `/v1/analyses/{analysis_id}/comments` answers only for an analysis that
// exists. A path parameter's resource is the component schema whose `id` has the parameter's `pattern` (the rule
// x-lifecycle uses for "the resource an operation acts on"). The parent is, in order: the example's id when the list
// answers 2xx with it (a mock seeded from the examples has it); else the first item of the parent's own list (itself
// found the same way when nested); else, with --allow-writes, one made by the parent's create (prerequisites.ts,
// deleted at the end of the run). With a parent, each declared filter (`x-filter`) of the list is asked with a value
// taken from an item it lists, so list-filters judges nested lists as it judges top-level ones.
import { FILTER_KEY } from "../../contract/filters.js";
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { Parts } from "../requests/cases.js";
import { answeredJson, caseOf, isList, listOf, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import type { Operation } from "../types.js";

const MAX_DEPTH = 3;

/** The component schema whose `id` has the path parameter's pattern, preferring one with a list of its own. */
export function schemaOfParam(ctx: Pick<RoundtripContext, "view">, param: Json): string | null {
  const contract = ctx.view.contract;
  const pattern = contract.deref(param?.schema)?.pattern;
  if (typeof pattern !== "string") return null;
  const same = Object.entries<Json>(contract.doc.components?.schemas ?? {})
    .filter(([, s]) => contract.deref(contract.deref(s)?.properties?.id)?.pattern === pattern)
    .map(([name]) => name);
  return same.find((name) => listOf(ctx.view, name)) ?? same[0] ?? null;
}

export class Parents {
  /** The path parameters that worked for each list, by operationId (or why none could be had). */
  private readonly resolved = new Map<string, Promise<Parts | { reason: string }>>();

  constructor(private readonly ctx: RoundtripContext) {}

  /** The list's first example with every path parameter naming a resource that exists; or why one could not be had. */
  partsOf(list: Operation, depth = 0): Promise<Parts | { reason: string }> {
    let p = this.resolved.get(list.operationId);
    if (!p) this.resolved.set(list.operationId, (p = this.resolve(list, depth)));
    return p;
  }

  private async resolve(list: Operation, depth: number): Promise<Parts | { reason: string }> {
    const example = this.ctx.builder.examples(list)[0];
    if (!example) return { reason: `${list.operationId} has no example` };
    const params = list.parameters.filter((p) => p.in === "path");
    if (!params.length) return example;
    if (succeeded(await sendCase(this.ctx, await caseOf(this.ctx, list, example, "parent: the example's")))) return example;
    const path = { ...example.path };
    for (const param of params) {
      const schema = schemaOfParam(this.ctx, param);
      if (!schema) return { reason: `no schema's id has ${param.name}'s pattern` };
      const id = await this.existing(schema, list, depth);
      if (typeof id !== "string") return id;
      path[param.name] = id;
    }
    return { ...example, path };
  }

  /**
   * `parts` with the path parameters a nested operation shares with its collection's list (`createComment`'s
   * `analysis_id`, from `listComments`) naming a parent that exists; unchanged when the operation is not nested or
   * none could be had. A probe that must fail on its body alone (an unknown reference: 400) is otherwise answered
   * 404 for a parent an earlier write of the run deleted (the example's analysis).
   */
  async withParents(op: Operation, parts: Parts): Promise<Parts> {
    const own = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
    if (!own.length) return parts;
    const lists = this.ctx.view.operations.filter((l) => isList(this.ctx.view, l) && l.template.includes("{") && (op.template === l.template || op.template.startsWith(`${l.template}/`)));
    const list = lists.sort((a, b) => b.template.length - a.template.length)[0];
    if (!list) return parts;
    const found = await this.partsOf(list);
    if ("reason" in found) return parts;
    const shared = Object.fromEntries(Object.entries(found.path ?? {}).filter(([k]) => own.includes(k)));
    return { ...parts, path: { ...parts.path, ...shared } };
  }

  /** An id of `schema`: the first of its list, else one made (writes only). */
  private async existing(schema: string, forOp: Operation, depth: number): Promise<string | { reason: string }> {
    const list = listOf(this.ctx.view, schema);
    if (list && depth < MAX_DEPTH) {
      const parts = await this.partsOf(list, depth + 1);
      if (!("reason" in parts)) {
        const page = answeredJson(await sendCase(this.ctx, await caseOf(this.ctx, list, { ...parts, query: {} }, `parent ${schema} (for ${forOp.operationId})`)));
        const first = Array.isArray(page?.data) ? page.data.find((d: Json) => typeof d?.id === "string") : undefined;
        if (first) return first.id as string;
      }
    }
    if (!this.ctx.allowWrites || !this.ctx.prereqs) return { reason: `no ${schema} was found, and making one is a write (--allow-writes)` };
    const made = await this.ctx.prereqs.ensure(schema, forOp);
    return "id" in made ? made.id : made;
  }

  /**
   * Each declared filter of every selected nested list, asked with its parent and a value from an item it lists
   * (a request judged by list-filters like any other); skipped with the reason when no parent could be had.
   */
  async filterCases(operations: Operation[]): Promise<void> {
    for (const op of operations.filter((o) => isList(this.ctx.view, o) && o.template.includes("{"))) {
      const filters = op.parameters.filter((p) => p.in === "query" && p[FILTER_KEY]);
      if (!filters.length || (this.ctx.only && !this.ctx.only(op, "nested filters"))) continue;
      const parts = await this.partsOf(op);
      if ("reason" in parts) {
        this.ctx.report.skip(op, "nested filters", `no parent: ${parts.reason}`);
        continue;
      }
      const page = answeredJson(await sendCase(this.ctx, await caseOf(this.ctx, op, { ...parts, query: {} }, "nested filters: first page")));
      const item: Json = Array.isArray(page?.data) ? page.data[0] : undefined;
      for (const p of filters) {
        const own = item?.[p[FILTER_KEY].property];
        const value = own === undefined || own === null ? this.ctx.builder.generator.value(p.schema, 1) : Array.isArray(own) ? own[0] : own;
        if (value === undefined) continue;
        await sendCase(this.ctx, await caseOf(this.ctx, op, { ...parts, query: { [p.name]: value } }, `nested filter ${p.name}`));
      }
    }
  }
}
