// The page walk's counterpart (judged by checks/pagination.ts): after a list was walked with a small `limit`, its
// first page with the largest `limit` it takes. When the walk reached its end and that one page holds the whole list
// too (`has_more: false`), both must show the same ids in the same order: an item skipped (or added) at a page
// boundary shows as an id one has and the other lacks. A read, sent in a read-only run too.
import type { Parts } from "../requests/cases.js";
import { caseOf, sendCase, type RoundtripContext } from "./probe-context.js";
import type { Operation, PageStep } from "../types.js";

/** The largest `limit` a list takes (its schema's maximum; 100 when it states none). */
export function largestLimit(ctx: RoundtripContext, op: Operation): number {
  const schema = ctx.view.contract.deref(op.parameters.find((p) => p.in === "query" && p.name === "limit")?.schema) ?? {};
  return typeof schema.maximum === "number" ? schema.maximum : 100;
}

/** Sends the one large page of `op` (the walk's `base` parts without a cursor), labelled for the walk it closes. */
export async function wholePage(ctx: RoundtripContext, op: Operation, base: Parts, step: Omit<PageStep, "limit" | "kind" | "page">): Promise<void> {
  if (ctx.only && !ctx.only(op, "whole page")) return;
  const limit = largestLimit(ctx, op);
  const query: Record<string, unknown> = { ...base.query, limit };
  delete query.cursor;
  const parts: Parts = { ...base, query, body: null };
  await sendCase(ctx, await caseOf(ctx, op, parts, "whole page", { kind: "page", page: { ...step, page: 1, limit, kind: "whole" } }));
}
