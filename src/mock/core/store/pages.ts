// Cursor pagination of the mock's own lists (API keys, webhooks), as every list of the contract has it (decision
// D4): `cursor` and `limit` in, `{data, next_cursor, has_more}` out. Items are newest first; a cursor names the
// place of the last item shown (its order of creation), so deleting items between pages skips nothing.
import type { RequestContext } from "../pipeline/context.js";
import type { Reply } from "../http/reply.js";
import { fromBase64UrlJson, toBase64UrlJson } from "../util/digest.js";

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * The page `ctx`'s `cursor` and `limit` ask for, of `items` (newest first; `seqOf` grows with creation), each shown
 * with `view`; a 400 for a cursor this list never gave out. The default `limit` is the operation's own.
 */
export function listPage<T, V>(ctx: RequestContext, items: readonly T[], seqOf: (item: T) => number, view: (item: T) => V): Reply {
  const q = ctx.query;
  const limit = Number(q.get("limit") ?? defaultLimit(ctx));
  const cursor = q.get("cursor");
  let before = Infinity;
  if (cursor !== null) {
    const seq = readCursor(cursor);
    if (seq === null) return ctx.json(400, { detail: "The cursor is not one this list gave out: pass the next_cursor of the previous page, or omit it." });
    before = seq;
  }
  const rest = items.filter((i) => seqOf(i) < before);
  const shown = rest.slice(0, limit);
  const hasMore = rest.length > shown.length;
  const page: Page<V> = { data: shown.map(view), next_cursor: hasMore ? writeCursor(seqOf(shown.at(-1)!)) : null, has_more: hasMore };
  return ctx.json(200, page);
}

function defaultLimit(ctx: RequestContext): number {
  const p = ctx.route.parameters.find((x) => x.in === "query" && x.name === "limit");
  return typeof p?.schema?.default === "number" ? p.schema.default : 20;
}

export function writeCursor(seq: number): string {
  return toBase64UrlJson({ before: seq });
}

function readCursor(cursor: string): number | null {
  try {
    const v = fromBase64UrlJson(cursor) as { before?: unknown };
    return Number.isInteger(v?.before) && (v.before as number) > 0 ? (v.before as number) : null;
  } catch {
    return null;
  }
}
