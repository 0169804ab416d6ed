// The pagination oracle's walks (judged by checks/pagination.ts): for every list operation (a GET answering
// `{data, next_cursor, has_more}` that takes `cursor` and `limit`, decision D4), the first page with a small
// `limit`, then each `next_cursor` until `has_more` is false or the walk's budget of pages is spent, then one
// request with a cursor this list never gave out; a walk that reached its end is compared with one large page
// (whole-page.ts). All reads: sent in a read-only run too.
import type { Parts } from "../requests/cases.js";
import { answeredJson, caseOf, isList, sendCase, type RoundtripContext } from "./probe-context.js";
import { wholePage } from "./whole-page.js";
import type { Operation, PageStep } from "../types.js";

/** Items per page the walk asks for: small, so a short list still spans pages. */
export const WALK_LIMIT = 2;
/** Pages a walk reads at most; a list still saying `has_more: true` after them is longer than the walk (a notice). */
export const WALK_MAX_PAGES = 25;
/** A well-formed cursor no list gives out (base64url JSON naming nothing). */
export const FOREIGN_CURSOR = Buffer.from(JSON.stringify({ verify: "a cursor this list never gave out" })).toString("base64url");

export function listOperations(ctx: RoundtripContext, ops: Operation[]): Operation[] {
  return ops.filter((op) => isList(ctx.view, op));
}

/** Walks one list; returns why it stopped before its end (a page not answered), or null. */
export async function walkPages(ctx: RoundtripContext, op: Operation): Promise<string | null> {
  const base = ctx.builder.examples(op)[0]!;
  const limitSchema = ctx.view.contract.deref(op.parameters.find((p) => p.in === "query" && p.name === "limit")?.schema) ?? {};
  const limit = Math.max(WALK_LIMIT, typeof limitSchema.minimum === "number" ? limitSchema.minimum : 1);
  const step = (page: number, kind: PageStep["kind"]): PageStep => ({ walk: op.operationId, page, limit, maxPages: WALK_MAX_PAGES, kind });
  const query = { ...base.query, limit };
  delete (query as Record<string, unknown>).cursor;
  let stopped: string | null = null;
  let firstAnswered = !!ctx.only;
  let ended = false;
  if (!ctx.only || ctx.only(op, "pages")) {
    let cursor: string | null = null;
    for (let page = 1; page <= WALK_MAX_PAGES; page++) {
      const parts: Parts = { ...base, query: cursor === null ? query : { ...query, cursor }, body: null };
      const sent = await sendCase(ctx, await caseOf(ctx, op, parts, "pages", { kind: "page", page: step(page, "page") }));
      const body = answeredJson(sent);
      if (!body) {
        // A first page refused (the example's parent id names nothing here: 404) was judged as any answer is;
        // there is nothing to walk. A later page refused is a broken walk.
        if (page > 1) stopped = `page ${page} was not answered 2xx`;
        break;
      }
      if (page === 1) firstAnswered = true;
      if (body.has_more === false) ended = true;
      // A cursor given back unchanged would loop for ever: the check has said so, the walk stops.
      if (body.has_more !== true || typeof body.next_cursor !== "string" || body.next_cursor === cursor) break;
      if (page === WALK_MAX_PAGES) stopped = `has_more was still true after ${WALK_MAX_PAGES} pages of ${limit}: the list is longer than a walk reads (not judged as endless while its pages move on)`;
      cursor = body.next_cursor;
    }
  }
  if (ended) await wholePage(ctx, op, base, { walk: op.operationId, maxPages: WALK_MAX_PAGES });
  // Only a list that answers at all can refuse a cursor (an example parent id may name nothing here: 404).
  if (firstAnswered && (!ctx.only || ctx.only(op, "foreign-cursor"))) {
    const parts: Parts = { ...base, query: { ...query, cursor: FOREIGN_CURSOR }, body: null };
    await sendCase(ctx, await caseOf(ctx, op, parts, "foreign-cursor", { kind: "page", page: step(1, "foreign-cursor") }));
  }
  return stopped;
}
