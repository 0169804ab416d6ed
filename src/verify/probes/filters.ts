// Every declared filter of every selected top-level list (`x-filter` on a query parameter, src/contract/filters.ts),
// asked on purpose with a value that excludes at least one item the list shows (judged by checks/list-filters.ts):
// the list's one large page is read first, and the value is taken from its items (else from the parameter's
// enum or generated values) so that the filter's own test
// (filterTest, the one the mock applies) refuses one of them. A backend that ignores the filter then answers that
// item, and list-filters names it. Nested lists are asked under a parent by parents.ts. All reads.
import { FILTER_KEY, filterTest, type FilterDecl } from "../../contract/filters.js";
import type { Json } from "../../mock/core/contract/contract-build.js";
import { answeredJson, caseOf, isList, listParts, sendCase, type RoundtripContext } from "./probe-context.js";
import { largestLimit } from "./whole-page.js";
import type { Operation } from "../types.js";

type Item = Record<string, unknown>;

/** The item properties of a list's 200 (`data[]`'s schema). */
function itemProperties(ctx: RoundtripContext, op: Operation): Record<string, Json> {
  const schema = ctx.view.contract.deref(ctx.view.declared(op, 200)?.content["application/json"]?.schema);
  return ctx.view.contract.deref(ctx.view.contract.deref(schema?.properties?.data)?.items)?.properties ?? {};
}

/**
 * A query value for `decl` that excludes at least one of `items` (preferring one some item passes too), valid for
 * the parameter's schema; null when none of the items' own values does.
 */
export function excludingValue(ctx: RoundtripContext, param: Json, decl: FilterDecl, property: Json, items: Item[]): string | null {
  const schema = ctx.view.contract.deref(param.schema) ?? {};
  // The items' own values first, then the parameter's other values (its enum, a few generated): one no item has
  // excludes them all.
  const own = items.flatMap((i) => (Array.isArray(i[decl.property]) ? (i[decl.property] as unknown[]) : [i[decl.property]]));
  const raw = [...own, ...(Array.isArray(schema.enum) ? schema.enum : []), ...[1, 2, 3].map((n) => ctx.builder.generator.value(schema, n))];
  const candidates = [...new Set(raw.filter((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean").map(String))];
  const valid = ctx.view.bodyValidator(schema);
  const typed = (v: string) => (typeof raw.find((r) => String(r) === v) === "string" ? v : JSON.parse(v));
  let fallback: string | null = null;
  for (const value of candidates) {
    if (!valid(typed(value))) continue;
    const test = filterTest(decl, property, [value]);
    const excluded = items.filter((i) => !test(i)).length;
    if (excluded && excluded < items.length) return value;
    if (excluded) fallback ??= value;
  }
  return fallback;
}

/** Asks each declared filter of each selected top-level list with a value that must exclude an item it shows. */
export async function filterProbes(ctx: RoundtripContext, operations: Operation[]): Promise<void> {
  for (const op of operations.filter((o) => isList(ctx.view, o) && !o.template.includes("{"))) {
    const filters = op.parameters.filter((p) => p.in === "query" && p[FILTER_KEY]);
    if (!filters.length || (ctx.only && !filters.some((p) => ctx.only!(op, `filter ${p.name}`)))) continue;
    const base = await listParts(ctx, op);
    if (!base) continue;
    const limit = largestLimit(ctx, op);
    const query: Record<string, unknown> = { ...base.query, limit };
    for (const p of filters) delete query[p.name];
    delete query.cursor;
    const page = answeredJson(await sendCase(ctx, await caseOf(ctx, op, { ...base, query, body: null }, "filters: one large page")));
    // Not answered (the request budget used up, a refused call): that request says why; nothing to pick from.
    if (page === undefined || page === null) continue;
    const items: Item[] = Array.isArray(page?.data) ? page.data.filter((d: Json) => d && typeof d === "object") : [];
    const properties = itemProperties(ctx, op);
    for (const p of filters) {
      if (ctx.only && !ctx.only(op, `filter ${p.name}`)) continue;
      const decl = p[FILTER_KEY] as FilterDecl;
      const value = excludingValue(ctx, p, decl, ctx.view.contract.deref(properties[decl.property]), items);
      if (value === null) {
        ctx.report.skip(op, `filter ${p.name}`, `no value of ${decl.property} among the ${items.length} item(s) listed excludes one of them: the filter was not tried on purpose`);
        continue;
      }
      await sendCase(ctx, await caseOf(ctx, op, { ...base, query: { ...query, [p.name]: value }, body: null }, `filter ${p.name}`));
    }
  }
}
