// Types derived from the generated contract types (generated/schema.d.ts): the typed call methods, the list
// operations `paginate` accepts, and the WebSocket operations.
import type { FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import type { components, paths } from "../../generated/schema.js";
import type { CallOptions } from "./options.js";

export type { paths, components };

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type MediaType = `${string}/${string}`;

type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/**
 * The init argument of a call: optional when nothing in it is required; always accepts `CallOptions`, and, as
 * openapi-fetch's own, any other key (its `[key: string]: unknown`), so the client is assignable to `Client<paths>`.
 */
export type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallOptions & { [key: string]: unknown })?] : [Init & CallOptions & { [key: string]: unknown }];

/** Paths (of `Paths`, the contract's by default) that have an operation for `M`. */
export type PathsWith<M extends HttpMethod, Paths = paths> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof Paths];

/**
 * One typed call method (`GET`, `POST`, ...) of a client for `Paths`: openapi-fetch's, plus the per-call
 * `timeoutMs` and `retry`. Generic in `Paths`, as openapi-fetch's own `ClientMethod` is, rather than written over
 * the contract's `paths`: with the concrete type, TypeScript resolved `paths[P]` for every path of the contract at
 * each call, so the cost of a call grew with the contract (3.5× openapi-fetch's instantiations at 100 operations,
 * 5.5× at 2,000; npm run bench, "Type cost"); with `Paths` a parameter it stays deferred until `P` is known.
 */
export type MethodOf<Paths extends Record<string, any>, M extends HttpMethod> = <P extends PathsWith<M, Paths>, Init extends MaybeOptionalInit<Paths[P], M>>(
  url: P,
  ...init: InitParam<Init>
) => Promise<FetchResponse<Paths[P][M], Init, MediaType>>;

/** One typed call method of the contract's client. */
export type ClientMethod<M extends HttpMethod> = MethodOf<paths, M>;

// ---- list operations -------------------------------------------------------------------------------------

/** The list envelope the contract uses for every list: `{data, next_cursor, has_more}`. */
export interface ListEnvelope<T = unknown> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
type OkJson<Op> = Op extends { responses: { 200: infer R } } ? JsonOf<R> : never;
type TakesCursor<Op> = Op extends { parameters: { query?: { cursor?: unknown } } } ? true : false;

/** Paths whose GET takes `cursor` and answers the list envelope. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: infer Op }
    ? [OkJson<Op>] extends [never]
      ? never
      : OkJson<Op> extends ListEnvelope
        ? TakesCursor<Op> extends true
          ? P
          : never
        : never
    : never;
}[keyof paths];

/** The page type of a list path (e.g. `AnalysisList`). */
export type ListPage<P extends ListPath> = OkJson<paths[P]["get"]>;
/** The item type of a list path (e.g. `Analysis` for `/v1/analyses`). */
export type ListItem<P extends ListPath> = ListPage<P> extends { data: Array<infer T> } ? T : never;
/** The init argument of `paginate`/`pages`: the list's GET init (the `cursor` query parameter picks the first page). */
export type ListInit<P extends ListPath> = InitParam<MaybeOptionalInit<paths[P], "get">>;

// ---- WebSocket operations --------------------------------------------------------------------------------

/** Paths whose GET upgrades to a WebSocket (answers 101). */
export type WebSocketPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 101: unknown } } } ? P : never;
}[keyof paths];

export type WebSocketParams<P extends WebSocketPath> = Omit<paths[P]["get"]["parameters"], "header" | "cookie">;

export interface WebSocketOptions<P extends WebSocketPath> {
  params: WebSocketParams<P>;
  /** WebSocket subprotocols. */
  protocols?: string | string[];
  /** Aborting closes the socket. */
  signal?: AbortSignal;
}

/** `openWebSocket`'s options argument: required only when the path has required parameters. */
export type WebSocketInit<P extends WebSocketPath> =
  RequiredKeysOf<WebSocketParams<P>> extends never
    ? [(Omit<WebSocketOptions<P>, "params"> & { params?: WebSocketParams<P> })?]
    : [WebSocketOptions<P>];

/** A WebSocket class: the platform's, the `ws` package's, or one a client is given (`ClientOptions.WebSocket`). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocket;
