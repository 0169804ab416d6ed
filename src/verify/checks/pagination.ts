// pagination: what a walk through a list (pages.ts) shows, page by page. Pages move on (no cursor given back, no id
// twice: a list still saying `has_more: true` after the walk's budget of pages with every id new is only longer than
// the walk, a notice, decision Y52); `has_more` and `next_cursor` agree (a cursor exactly when there is more); no page repeats the
// cursor it was asked with; no id shows twice in one walk; no page holds more than `limit` items; and a cursor
// the list never gave out is refused with 400, as the contract's `Cursor` parameter ("from the previous page's
// `next_cursor`") and decision W15 say. A list that answers `has_more: true` with the same cursor forever passed
// every other check. A walk that reached its end shows the same ids, in the same order, as the list's one large
// page when that page holds the whole list (`has_more: false`): no item skipped or repeated at a page boundary.
import type { Check, Exchange } from "../types.js";
import { operationPointer } from "../session/reproduce.js";
import { parseJson } from "./util.js";

interface Walk {
  ids: Map<string, number>;
  cursor: string | null;
  /** The walk's last page said `has_more: false`. */
  ended: boolean;
}

export function pagination(): Check {
  const walks = new Map<string, Walk>();
  return {
    name: "pagination",
    description: "Pages end, has_more and next_cursor agree, no id twice, limit honoured, a foreign cursor is refused.",
    check(e) {
      const step = e.page;
      if (!step || e.response.status === 429) return null;
      if (step.kind === "foreign-cursor") return e.response.status === 400 ? [] : [`a cursor this list never gave out answered ${e.response.status}; expected 400`];
      if (e.response.status !== 200) return null;
      const body = parseJson(e.response);
      if (!body.ok || !body.value || typeof body.value !== "object") return null; // response-schema's finding
      if (step.kind === "whole") {
        const walk = walks.get(step.walk);
        return walk?.ended ? compareWhole(body.value as Record<string, unknown>, walk) : null;
      }
      if (step.page === 1) walks.set(step.walk, { ids: new Map(), cursor: null, ended: false });
      const walk = walks.get(step.walk);
      if (walk && (body.value as Record<string, unknown>).has_more === false) walk.ended = true;
      return walk ? judgePage(e, body.value as Record<string, unknown>, walk) : null;
    },
    schemaPath: (e) => `${operationPointer(e)}/responses/200/content/application~1json/schema`,
  };
}

function judgePage(e: Exchange, page: Record<string, unknown>, walk: Walk): string[] {
  const step = e.page!;
  const out: string[] = [];
  const data = Array.isArray(page.data) ? page.data : [];
  const { has_more: more, next_cursor: next } = page;
  if (data.length > step.limit) out.push(`page ${step.page} holds ${data.length} items; limit ${step.limit} was asked`);
  for (const item of data) {
    const id = (item as { id?: unknown })?.id;
    if (typeof id !== "string") continue;
    const first = walk.ids.get(id);
    if (first !== undefined) out.push(`id ${id} shows on page ${first} and again on page ${step.page}`);
    else walk.ids.set(id, step.page);
  }
  if (more === true && (typeof next !== "string" || next === "")) out.push(`page ${step.page} says has_more: true without a next_cursor`);
  if (more === false && next !== null && next !== undefined) out.push(`page ${step.page} says has_more: false but gives next_cursor ${JSON.stringify(next)}`);
  const asked = new URL(e.request.url).searchParams.get("cursor");
  if (more === true && asked !== null && next === asked) out.push(`page ${step.page} gives back the cursor it was asked with: the pages never move on`);
  // Several repeated ids are one finding: keep the first of each kind.
  return [...new Map(out.map((m) => [m.replace(/\d+/g, "#").replace(/id \S+/, "id"), m])).values()];
}

/** The one large page against the walk: the same ids in the same order, when that page holds the whole list. */
function compareWhole(page: Record<string, unknown>, walk: Walk): string[] | null {
  if (page.has_more !== false || !Array.isArray(page.data)) return null; // the list is longer than one page may be
  const whole = page.data.map((d) => (d as { id?: unknown })?.id).filter((id): id is string => typeof id === "string");
  const walked = [...walk.ids.keys()];
  const skipped = whole.filter((id) => !walk.ids.has(id));
  if (skipped.length) return [`the walk skipped ${skipped.length} item(s) one large page lists (first: id ${skipped[0]}, page of ${whole.length})`];
  const extra = walked.filter((id) => !whole.includes(id));
  if (extra.length) return [`the walk showed ${extra.length} item(s) the one large page does not list (first: id ${extra[0]})`];
  const at = whole.findIndex((id, i) => walked[i] !== id);
  return at < 0 ? [] : [`the walk lists the items in another order than one large page (position ${at + 1}: id ${walked[at]} instead of ${whole[at]})`];
}
