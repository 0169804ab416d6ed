// What an operation of the store is asked and answers, and the answer to a list request. Below ops.ts, handlers.ts
// and derived.ts, which all answer with it (decision LY2).
import type { Route } from "../contract/contract-build.js";
import { page, pageJson, ListError } from "./lists.js";
import type { Rec } from "./records.js";
import { StoreError, type Store } from "./store.js";

export interface StoreRequest {
  route: Route;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The validated body: parsed JSON or form, or the raw bytes of an upload. */
  body: unknown;
  workspaceId: string;
  scenario?: string;
}

export interface StoreAnswer {
  status: number;
  body: Buffer | null;
}

const EMPTY_PAGE = Buffer.from('{"data":[],"next_cursor":null,"has_more":false}');

export const json = (status: number, value: unknown): StoreAnswer => ({ status, body: Buffer.from(JSON.stringify(value)) });

/**
 * The answer to a list request over `records` (in list order): an empty page for the `empty` scenario, 400 for a
 * cursor or range the list cannot take. `cache` may keep the bytes (Table.page).
 */
export function listAnswer(store: Store, req: StoreRequest, records: readonly Rec[], query: URLSearchParams, cache = (make: () => Buffer) => make()): StoreAnswer {
  if (req.scenario === "empty") return { status: req.route.successCode, body: EMPTY_PAGE };
  try {
    return { status: req.route.successCode, body: cache(() => pageJson(page(store.listSpecs.get(req.route)!, records, query))) };
  } catch (e) {
    if (e instanceof ListError) throw new StoreError(400, e.message);
    throw e;
  }
}
