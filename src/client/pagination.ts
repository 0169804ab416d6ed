// Cursor pagination over the contract's list operations (every list takes `cursor` and answers
// `{data, next_cursor, has_more}`, decision D4). Entry point `@avt/api-contract/pagination` (also exported by the
// package root): functions that take the client rather than methods on it, so that an app that does not page
// does not bundle them (npm run bench, "Client size").
import type { ApiClient } from "./client.js";
import { toApiError, type FetchResult } from "./errors.js";
import type { ListEnvelope, ListInit, ListItem, ListPage, ListPath } from "./types.js";

export type { ListEnvelope, ListInit, ListItem, ListPage, ListPath } from "./types.js";

function isListEnvelope(v: unknown): v is ListEnvelope {
  return typeof v === "object" && v !== null && Array.isArray((v as ListEnvelope).data) && typeof (v as ListEnvelope).has_more === "boolean";
}

async function* allPages(client: ApiClient, path: string, init?: { params?: { query?: Record<string, unknown> } }) {
  // The typed method, seen untyped: `pages` is typed by its signature below.
  const get = client.GET as unknown as (path: string, init: object) => Promise<Required<FetchResult>>;
  const params = init?.params ?? {};
  let cursor = params.query?.cursor as string | undefined;
  for (;;) {
    const query = cursor === undefined ? params.query : { ...params.query, cursor };
    const { data, error, response } = await get(path, { ...init, params: { ...params, query } });
    if (!response.ok) throw toApiError(response, error);
    if (!isListEnvelope(data)) throw new TypeError(`GET ${path} did not answer a list page ({data, next_cursor, has_more})`);
    yield { ...data, response };
    if (!data.has_more) return;
    if (typeof data.next_cursor !== "string" || data.next_cursor === cursor) {
      throw new TypeError(`GET ${path} answered has_more without a new next_cursor; stopping instead of looping`);
    }
    cursor = data.next_cursor;
  }
}

/** The pages of a list, fetched one by one as the loop advances, each with its `response` (for `readRateLimit`). Throws `ApiError`. */
export function pages<P extends ListPath>(client: ApiClient, path: P, ...init: ListInit<P>): AsyncGenerator<ListPage<P> & { response: Response }, void, undefined> {
  return allPages(client, path, init[0] as Parameters<typeof allPages>[2]) as AsyncGenerator<ListPage<P> & { response: Response }, void, undefined>;
}

/** Every item of every page of a list, fetched page by page as the loop advances. Throws `ApiError`. */
export async function* paginate<P extends ListPath>(client: ApiClient, path: P, ...init: ListInit<P>): AsyncGenerator<ListItem<P>, void, undefined> {
  for await (const page of pages(client, path, ...init)) yield* page.data as Array<ListItem<P>>;
}
