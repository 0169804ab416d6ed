// pagination: what a walk through a list (pages.ts) shows, page by page. Pages end (`has_more: false` within the
// walk's budget); `has_more` and `next_cursor` agree (a cursor exactly when there is more); no page repeats the
// cursor it was asked with; no id shows twice in one walk; no page holds more than `limit` items; and a cursor
// the list never gave out is refused with 400, as the contract's `Cursor` parameter ("from the previous page's
// `next_cursor`") and decision W15 say. A list that answers `has_more: true` with the same cursor forever passed
// every other check.
import type { Check, Exchange } from "../types.js";
import { operationPointer } from "../session/reproduce.js";
import { parseJson } from "./util.js";

interface Walk {
  ids: Map<string, number>;
  cursor: string | null;
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
      if (step.page === 1) walks.set(step.walk, { ids: new Map(), cursor: null });
      const walk = walks.get(step.walk);
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
  if (more === true && step.page >= step.maxPages) out.push(`pages do not end: has_more is still true after ${step.maxPages} pages of ${step.limit}`);
  // Several repeated ids are one finding: keep the first of each kind.
  return [...new Map(out.map((m) => [m.replace(/\d+/g, "#").replace(/id \S+/, "id"), m])).values()];
}
