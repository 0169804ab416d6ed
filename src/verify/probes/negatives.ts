// Negative values per field (issue 33 item 2): for each request schema, one case per constraint the contract
// states on a field — `enum`, `format`, `pattern`, `minimum`/`maximum` (and the exclusive ones), `minLength`/
// `maxLength`, `minItems`/`maxItems`, `type`, `additionalProperties: false` (in nested objects and in an array's
// first item too: `event_types.0 enum`), and the `x-status` rules of the body
// (a conditional subschema whose `if` holds and whose `then` does not) — each made from the operation's first
// example with that one field broken, so the field is the only thing wrong. What the contract promises for each
// is worked out by the gateway's own RequestValidator (the same reading of the schemas as the mock's): 422 with a
// `detail` item whose `loc` names the field, or the `x-status` rule's status. A candidate the validator accepts is
// dropped (a schema keyword that does not bind, e.g. a format ajv does not know). Judged by
// checks/negative-values.ts; bounded by a budget of cases per run (`--negative-budget`, decision Y35).
import type { Json } from "../../mock/core/contract/contract-build.js";
import { BadRequest } from "../../mock/core/contract/validation.js";
import type { Parts } from "../requests/cases.js";
import { isJsonMediaType } from "../requests/contract-view.js";
import { caseOf, sendCase, type RoundtripContext } from "./probe-context.js";
import { pointer } from "../session/reproduce.js";
import type { Operation, Probe } from "../types.js";
import { fillPath, queryString } from "../requests/encode.js";
import { locNames, verdictOf, type NegativeResult } from "../requests/negative-verdict.js";

export type { NegativeResult } from "../requests/negative-verdict.js";

/** One broken field: where, which constraint, the value sent and the pointer of the constraint in the contract. */
export interface NegativeSite {
  location: "body" | "query";
  /** Dotted path from the body's root (`config.language`), or the query parameter's name. */
  field: string;
  constraint: string;
  value: unknown;
  pointer: string;
}

const MAX_DEPTH = 3;

/** One value per constraint of `s` that `s` refuses (confirmed later by the validator). */
export function constraintValues(s: Json): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const main = types.find((t) => t !== "null");
  if (Array.isArray(s.enum)) out.push(["enum", "not_a_listed_value"]);
  if (typeof s.format === "string") out.push([`format ${s.format}`, "not a valid value!"]);
  if (typeof s.pattern === "string") out.push(["pattern", "not a valid value!"]);
  if (typeof s.minimum === "number") out.push(["minimum", s.minimum - (main === "integer" ? 1 : 0.5)]);
  if (typeof s.exclusiveMinimum === "number") out.push(["exclusiveMinimum", s.exclusiveMinimum]);
  if (typeof s.maximum === "number") out.push(["maximum", s.maximum + (main === "integer" ? 1 : 0.5)]);
  if (typeof s.exclusiveMaximum === "number") out.push(["exclusiveMaximum", s.exclusiveMaximum]);
  if (typeof s.minLength === "number" && s.minLength > 0) out.push(["minLength", "x".repeat(s.minLength - 1)]);
  if (typeof s.maxLength === "number") out.push(["maxLength", "x".repeat(s.maxLength + 1)]);
  if (typeof s.minItems === "number" && s.minItems > 0) out.push(["minItems", []]);
  if (typeof s.maxItems === "number") out.push(["maxItems", Array.from({ length: s.maxItems + 1 }, () => (Array.isArray(s.items?.enum) ? s.items.enum[0] : "x"))]);
  if (main) out.push(["type", wrongType(main)]);
  return out;
}

function wrongType(type: string): unknown {
  if (type === "string") return 12345;
  if (type === "integer" || type === "number") return "not-a-number";
  if (type === "boolean") return "not-a-boolean";
  if (type === "array") return "not-an-array";
  return "not-an-object";
}

/** `value` with the field at `path` set to `v` (parents made when missing). */
function setAt(value: Record<string, unknown>, path: string[], v: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  if (!rest.length) return { ...value, [head]: v };
  const inner = value[head];
  return { ...value, [head]: setAt(inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {}, rest, v) };
}

/** Every field of a body schema with its constraints, nested objects included (to MAX_DEPTH), and the objects that close their properties. */
export function bodySites(deref: (n: Json) => Json, schema: Json, base: Record<string, unknown>, at: string, path: string[] = []): NegativeSite[] {
  const s = deref(schema);
  if (!s || typeof s !== "object" || path.length > MAX_DEPTH) return [];
  const here = schema?.$ref ?? at;
  const out: NegativeSite[] = [];
  if (s.additionalProperties === false) {
    out.push({ location: "body", field: [...path, "unexpected_field"].join("."), constraint: "additionalProperties", value: setAt(base, [...path, "unexpected_field"], 1), pointer: `${here}/additionalProperties` });
  }
  for (const [name, p] of Object.entries<Json>(s.properties ?? {})) {
    const ps = deref(p);
    if (!ps || typeof ps !== "object" || ps.readOnly) continue;
    const fieldPath = [...path, name];
    const pp = `${p?.$ref ?? `${here}/properties/${name}`}`;
    for (const [constraint, v] of constraintValues(ps)) out.push({ location: "body", field: fieldPath.join("."), constraint, value: setAt(base, fieldPath, v), pointer: `${pp}` });
    if (ps.properties) out.push(...bodySites(deref, p, base, `${here}/properties/${name}`, fieldPath));
    if (ps.type === "array" && ps.items) out.push(...itemSites(deref, ps.items, base, `${pp}/items`, fieldPath));
  }
  out.push(...statusRuleSites(deref, s, base, here));
  return out;
}

/**
 * The constraints of an array's items, broken in its first item (`event_types.0 enum`): the body's own array with
 * that item replaced (or a one-item array), so the array's own constraints still hold; an object item's fields
 * are broken one by one the same way (bodySites on the item).
 */
function itemSites(deref: (n: Json) => Json, items: Json, base: Record<string, unknown>, at: string, arrayPath: string[]): NegativeSite[] {
  const is = deref(items);
  if (!is || typeof is !== "object" || arrayPath.length > MAX_DEPTH) return [];
  let own: unknown = base;
  for (const k of arrayPath) own = own && typeof own === "object" ? (own as Record<string, unknown>)[k] : undefined;
  const existing = Array.isArray(own) ? own : [];
  const withFirst = (v: unknown) => setAt(base, arrayPath, existing.length ? [v, ...existing.slice(1)] : [v]);
  const field = [...arrayPath, "0"].join(".");
  const here = items?.$ref ?? at;
  if (is.properties) {
    const first = existing[0] && typeof existing[0] === "object" ? (existing[0] as Record<string, unknown>) : {};
    return bodySites(deref, items, first, here).map((site) => ({ ...site, field: `${field}.${site.field}`, value: withFirst(site.value) }));
  }
  return constraintValues(is).map(([constraint, v]) => ({ location: "body", field, constraint, value: withFirst(v), pointer: here }));
}

/**
 * The `x-status` rules of a body schema (`dependentSchemas` entries with `if`/`then`): the base body made to meet
 * the `if` (each `const` it names, or an array `contains` one) and to break the `then` (its `required` left out,
 * or its `not` met by the `if`'s own values).
 */
function statusRuleSites(deref: (n: Json) => Json, s: Json, base: Record<string, unknown>, here: string): NegativeSite[] {
  const out: NegativeSite[] = [];
  for (const [prop, dep] of Object.entries<Json>(s.dependentSchemas ?? {})) {
    const rule = deref(dep);
    if (typeof rule?.["x-status"] !== "number" || !rule.if) continue;
    let value = { ...base };
    for (const [name, cond] of Object.entries<Json>(rule.if.properties ?? {})) {
      if (cond?.const !== undefined) value[name] = cond.const;
      else if (cond?.contains?.const !== undefined) value[name] = [cond.contains.const];
    }
    for (const name of rule.then?.required ?? []) delete value[name];
    const forbidden = rule.then?.properties ?? {};
    for (const [name, sub] of Object.entries<Json>(forbidden)) {
      const consts = sub?.not?.contains?.enum;
      if (Array.isArray(consts)) value = { ...value, [name]: [consts[0]] };
    }
    out.push({ location: "body", field: prop, constraint: `x-status ${rule["x-status"]}`, value, pointer: `${here}/dependentSchemas/${prop}` });
  }
  return out;
}

/** The statuses the contract promises for a body (by the gateway's validator), or null when it takes it. */
async function expectedForBody(ctx: RoundtripContext, op: Operation, mediaType: string, value: unknown, field: string): Promise<number[] | null> {
  try {
    const { issues, rule } = await ctx.view.requestValidator.checkBody(op, mediaType, Buffer.from(JSON.stringify(value)));
    if (rule) return [rule.status];
    // Only a case whose violations name the field itself (the contract's 422 must name it).
    return locNames(issues, `body.${field}`) ? [422] : null;
  } catch (e) {
    if (e instanceof BadRequest) return [400];
    throw e;
  }
}

/** The cases of one operation: its body's fields (JSON bodies), then its query parameters. */
async function casesOf(ctx: RoundtripContext, op: Operation): Promise<Array<{ site: NegativeSite; parts: Parts; expect: number[] }>> {
  const base = ctx.builder.examples(op)[0];
  if (!base) return [];
  const out: Array<{ site: NegativeSite; parts: Parts; expect: number[] }> = [];
  const deref = (n: Json) => ctx.view.contract.deref(n);
  const body = base.body;
  if (body && isJsonMediaType(body.mediaType) && body.value && typeof body.value === "object" && !Array.isArray(body.value)) {
    const at = pointer("paths", op.template, op.method, "requestBody", "content", body.mediaType, "schema");
    for (const site of bodySites(deref, body.media.schema, body.value as Record<string, unknown>, at)) {
      const expect = await expectedForBody(ctx, op, body.mediaType, site.value, site.field);
      if (expect) out.push({ site, parts: { ...base, body: { ...body, value: site.value } }, expect });
    }
  }
  const queryParams = op.parameters.filter((p) => p.in === "query");
  queryParams.forEach((p, i) => {
    for (const [constraint, v] of constraintValues(deref(p.schema) ?? {})) {
      const parts: Parts = { ...base, query: { ...base.query, [p.name]: v } };
      const url = new URL(fillPath(op.template, parts.path) + queryString(queryParams, parts.query), "http://x.invalid");
      if (!ctx.view.requestValidator.checkParams(op, ctx.view.pathParams(op, url.pathname) ?? {}, url.searchParams, {}).length) continue;
      const site: NegativeSite = { location: "query", field: p.name, constraint, value: v, pointer: `${pointer("paths", op.template, op.method, "parameters")}/${op.op.parameters ? i : 0}` };
      out.push({ site, parts, expect: [422] });
    }
  });
  return out;
}

/**
 * Sends the negative cases of the selected operations, at most `budget` in all (then each case left is reported
 * as not sent); writes only with --allow-writes. Returns every case's result, by field.
 */
export async function negativeValues(ctx: RoundtripContext, operations: Operation[], budget: number): Promise<NegativeResult[]> {
  const results: NegativeResult[] = [];
  let left = budget;
  let readOnly = 0;
  let overBudget = 0;
  for (const op of operations) {
    if (op.public) continue;
    const write = op.method !== "get" && op.method !== "head";
    for (const { site, parts, expect } of await casesOf(ctx, op)) {
      const label = `negative ${site.location}.${site.field} ${site.constraint}`;
      if (ctx.only && !ctx.only(op, label)) continue;
      const result: NegativeResult = { operationId: op.operationId, location: site.location, field: site.field, constraint: site.constraint, expected: expect, status: null, verdict: "not-sent" };
      results.push(result);
      if (write && !ctx.allowWrites) {
        readOnly++;
        continue;
      }
      if (left <= 0) {
        overBudget++;
        continue;
      }
      left--;
      const probe: Probe = { kind: "negative-value", expect: expect[0]!, field: `${site.location}.${site.field}`, why: `${site.location}.${site.field} breaks its ${site.constraint}`, pointer: site.pointer };
      const sent = await sendCase(ctx, await caseOf(ctx, op, parts, label, { probe }));
      if (sent.kind !== "answered") continue;
      result.status = sent.exchange.response.status;
      result.verdict = verdictOf(result.status, expect, sent.exchange.response.body, probe.field!);
    }
  }
  if (overBudget) ctx.report.notices.push(`${overBudget} negative value case(s) not sent: --negative-budget ${budget} used up`);
  if (readOnly) ctx.report.notices.push(`${readOnly} negative value case(s) of writes not sent: they need --allow-writes`);
  return results;
}
