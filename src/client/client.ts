// createClient: an openapi-fetch client typed by the contract, whose `fetch` adds credentials, timeouts and
// retries, plus helpers for what openapi-fetch does not cover: pagination, the SSE event stream, WebSocket
// and EventSource URLs with the `token` query parameter, and streamed uploads.
//
// Errors: calls keep openapi-fetch's `{ data, error, response }` result (nothing is thrown for a non-2xx
// answer, and `error` is typed by the contract's error bodies); `unwrap(result)` turns a failure into a thrown
// `ApiError`. The helpers that return iterators (`paginate`, `pages`, `streamAnalysisEvents`) throw `ApiError`.
import createFetchClient, {
  createFinalURL,
  createQuerySerializer,
  defaultBodySerializer,
  defaultPathSerializer,
  type BodySerializer,
  type Client,
  type FetchResponse,
  type HeadersOptions,
  type Middleware,
  type QuerySerializer,
  type QuerySerializerOptions,
} from "openapi-fetch";
import type { paths } from "../../generated/schema.js";
import { CredentialsError, StreamError, toApiError, type FetchResult } from "./errors.js";
import { isFinalEvent, readEventStream, toAnalysisStreamEvent, type AnalysisStreamEvent } from "./sse.js";
import type { RateLimit } from "./rate-limit.js";
import { sleep, systemTimers, type Timers } from "./timers.js";
import {
  backoffMs,
  checkTimeout,
  createTransport,
  DEFAULT_TIMEOUT_MS,
  RETRY_DEFAULTS,
  resolveRetry,
  type CallOptions,
  type FetchFn,
  type RetryOptions,
} from "./transport.js";
import type {
  ClientMethod,
  ListEnvelope,
  ListInit,
  ListItem,
  ListPage,
  ListPath,
  WebSocketInit,
  WebSocketParams,
  WebSocketPath,
} from "./types.js";
import { webSocketClass, withToken, type WebSocketConstructor } from "./websocket.js";

/** Where the credentials go; the names are the contract's security schemes (`ApiKeyAuth`, `BearerAuth`). */
export const API_KEY_HEADER = "X-API-Key";
export const AUTHORIZATION_HEADER = "Authorization";

/** A bearer JWT, or a function giving a fresh one (called before every attempt; it may cache). */
export type TokenSource = string | (() => string | Promise<string>);

export interface ClientOptions {
  /** The service root, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** An API key (`pk_live_...`/`pk_test_...`), sent as `X-API-Key`. For server-to-server use. */
  apiKey?: string;
  /** A JWT sent as `Authorization: Bearer`, or a function returning one. For browsers and mobile apps. */
  token?: TokenSource;
  /**
   * Per attempt: time to wait for the response headers, then again for the body (a body read whole, as JSON or
   * text, must arrive within it; a body read as a stream, `parseAs: "stream"`, within it of each previous chunk;
   * event streams are not timed once open). Default 30 000 ms; 0 waits forever.
   */
  timeoutMs?: number;
  /** Retry policy; `false` sends every request once. */
  retry?: RetryOptions | false;
  /** The fetch to send with; default `globalThis.fetch`. Called as `fetch(request, { signal, body? })`. */
  fetch?: FetchFn;
  /** The clock retries, timeouts and reconnects wait on (tests inject a fake one). */
  timers?: Timers;
  /** Headers sent with every request. */
  headers?: HeadersOptions;
  querySerializer?: QuerySerializer<unknown> | QuerySerializerOptions;
  /** Serializer of JSON bodies. Streams, Blobs, byte arrays and FormData are always sent as they are. */
  bodySerializer?: BodySerializer<unknown>;
  /**
   * Told the `X-RateLimit-*` headers (and `Retry-After`) of every response that carries them, parsed by
   * `readRateLimit`, including the 429s and 5xxs that are retried: e.g. to show the remaining quota or to slow
   * down before a 429. Responses whose headers are absent or malformed are not reported. Unlike a middleware,
   * it also sees the attempts that are retried.
   */
  onRateLimit?: (rateLimit: RateLimit, response: Response) => void;
  /** openapi-fetch middleware, registered in this order. It runs above the retries: once per call. */
  middleware?: Middleware[];
  /** The WebSocket class for `openWebSocket`; default the platform's, else the `ws` package (Node). */
  WebSocket?: WebSocketConstructor;
}

export interface EventStreamOptions {
  /** Resume after this event id (sent as `Last-Event-ID`); default: every event from the first. */
  lastEventId?: string;
  /** Aborting ends the iteration quietly and closes the connection. */
  signal?: AbortSignal;
  /** Reopen a stream that ends or breaks before its last event, resuming after the last id. Default 5 tries in a row. */
  reconnect?: false | { maxAttempts?: number };
  /** Timeout for the stream to open (response headers), per attempt. */
  timeoutMs?: number;
}

type StreamUploadQuery = paths["/v1/analysis/stream-upload"]["post"]["parameters"]["query"];
type StreamUploadResult = FetchResponse<paths["/v1/analysis/stream-upload"]["post"], {}, `${string}/${string}`>;

export interface StreamUploadOptions extends CallOptions {
  /** The upload's options (`media_type`, `title`, `features`, ...). */
  query: StreamUploadQuery;
  /** The media. A `ReadableStream` is streamed as it is produced and never retried; other bodies are retried. */
  body: ReadableStream<Uint8Array> | Blob | ArrayBuffer | ArrayBufferView | string;
  signal?: AbortSignal;
}

export interface ApiClient {
  GET: ClientMethod<"get">;
  PUT: ClientMethod<"put">;
  POST: ClientMethod<"post">;
  DELETE: ClientMethod<"delete">;
  PATCH: ClientMethod<"patch">;
  request: Client<paths>["request"];
  use: Client<paths>["use"];
  eject: Client<paths>["eject"];
  /** Every item of every page of a list, fetched page by page as the loop advances. Throws `ApiError`. */
  paginate<P extends ListPath>(path: P, ...init: ListInit<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The pages of a list, each with its `response` (for `readRateLimit`). Throws `ApiError`. */
  pages<P extends ListPath>(path: P, ...init: ListInit<P>): AsyncGenerator<ListPage<P> & { response: Response }, void, undefined>;
  /** The events of an analysis (GET /v1/analysis/{id}/stream), typed by `AnalysisStreamEvent`. Ends after the last one. */
  streamAnalysisEvents(analysisId: string, options?: EventStreamOptions): AsyncGenerator<AnalysisStreamEvent, void, undefined>;
  /** A URL for a browser `EventSource` on an analysis's events, with the `token` query parameter (TLS only). */
  eventSourceUrl(analysisId: string): Promise<string>;
  /** The `wss://` URL of a WebSocket operation, with the `token` query parameter (TLS only). */
  webSocketUrl<P extends WebSocketPath>(path: P, params?: WebSocketParams<P>): Promise<string>;
  /**
   * Connects to a WebSocket operation (`/v1/stream`, `/ws/analyses/{analysis_id}`) with the `token` query
   * parameter. Resolves with the socket as soon as it is created, before it opens, so listeners added right
   * after `await` miss no message; `whenOpen(socket)` waits for the open. Aborting `signal` closes the socket.
   */
  openWebSocket<P extends WebSocketPath>(path: P, ...options: WebSocketInit<P>): Promise<WebSocket>;
  /** POST /v1/analysis/stream-upload with a body of any length, sent as `application/octet-stream`. */
  streamUpload(options: StreamUploadOptions): Promise<StreamUploadResult>;
}

const HEADER_SAFE = /^[\x21-\x7e]+$/;

function checkedCredential(name: string, value: unknown): string {
  if (typeof value !== "string" || !HEADER_SAFE.test(value)) {
    // The value itself is never part of the message.
    throw new CredentialsError(`${name} must be a non-empty string of visible ASCII characters without spaces`);
  }
  return value;
}

interface Credentials {
  authenticate(headers: Headers): void | Promise<void>;
  /** The credential for the `token` query parameter. */
  queryToken(): Promise<string>;
}

function credentials(options: ClientOptions): Credentials {
  const { apiKey, token } = options;
  if (apiKey !== undefined && token !== undefined) {
    throw new CredentialsError("pass either apiKey (server-to-server) or token (a user's JWT), not both");
  }
  if (apiKey !== undefined) {
    const key = checkedCredential("apiKey", apiKey);
    return { authenticate: (h) => h.set(API_KEY_HEADER, key), queryToken: async () => key };
  }
  if (typeof token === "string") {
    const bearer = `Bearer ${checkedCredential("token", token)}`;
    return { authenticate: (h) => h.set(AUTHORIZATION_HEADER, bearer), queryToken: async () => token };
  }
  if (typeof token === "function") {
    const fresh = async () => checkedCredential("the token function's result", await token());
    return {
      authenticate: async (h) => h.set(AUTHORIZATION_HEADER, `Bearer ${await fresh()}`),
      queryToken: fresh,
    };
  }
  throw new CredentialsError(
    "no credentials: pass apiKey (sent as X-API-Key) or token (a JWT, or a function returning one, sent as Authorization: Bearer)",
  );
}

function isRawBody(body: unknown): boolean {
  return (
    (typeof Blob !== "undefined" && body instanceof Blob) ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof FormData !== "undefined" && body instanceof FormData) ||
    body instanceof URLSearchParams
  );
}

function isStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
}

function isListEnvelope(v: unknown): v is ListEnvelope {
  return typeof v === "object" && v !== null && Array.isArray((v as ListEnvelope).data) && typeof (v as ListEnvelope).has_more === "boolean";
}

export function createClient(options: ClientOptions): ApiClient {
  if (typeof options?.baseUrl !== "string") throw new TypeError("baseUrl must be a string, e.g. https://api.example.com");
  const creds = credentials(options);
  const timers = options.timers ?? systemTimers;
  const timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : checkTimeout("timeoutMs", options.timeoutMs);
  const retry = resolveRetry(options.retry ?? {}, RETRY_DEFAULTS);
  const send: FetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const streamedBodies = new WeakSet<object>();
  const serializeJson = options.bodySerializer ?? defaultBodySerializer;
  if (options.onRateLimit !== undefined && typeof options.onRateLimit !== "function") {
    throw new TypeError("onRateLimit must be a function (rateLimit, response) => void");
  }

  const fetchClient = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    querySerializer: options.querySerializer,
    fetch: createTransport({
      fetch: send,
      timers,
      timeoutMs,
      retry,
      authenticate: creds.authenticate,
      streamedBodies,
      onRateLimit: options.onRateLimit,
    }),
    bodySerializer(body: unknown, headers?: Headers | Record<string, string>) {
      if (isStream(body)) {
        streamedBodies.add(body);
        return body;
      }
      if (isRawBody(body)) return body;
      const type = headers instanceof Headers ? headers.get("Content-Type") : undefined;
      if (typeof body === "string" && type && !/json/i.test(type)) return body;
      return (serializeJson as (body: unknown, headers?: unknown) => unknown)(body, headers);
    },
    // Lets a ReadableStream be a request body (fetch requires it then; harmless otherwise).
    ...({ duplex: "half" } as object),
  });
  if (options.middleware?.length) fetchClient.use(...options.middleware);

  // The typed methods, seen untyped: `pages` and `paginate` are typed by their signatures in `ApiClient`.
  const getAny = fetchClient.GET as unknown as (path: string, init: object) => Promise<Required<FetchResult>>;

  async function* pages(path: string, init?: { params?: { query?: Record<string, unknown> } }) {
    const params = init?.params ?? {};
    let cursor = params.query?.cursor as string | undefined;
    for (;;) {
      const query = cursor === undefined ? params.query : { ...params.query, cursor };
      const { data, error, response } = await getAny(path, { ...init, params: { ...params, query } });
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

  async function* paginate(path: string, init?: object) {
    for await (const page of pages(path, init)) yield* page.data;
  }

  async function* streamAnalysisEvents(analysisId: string, opts: EventStreamOptions = {}) {
    const { signal } = opts;
    const maxReconnects = opts.reconnect === false ? 0 : (opts.reconnect?.maxAttempts ?? 5);
    const policy = retry ?? RETRY_DEFAULTS;
    let lastEventId = opts.lastEventId;
    let serverRetryMs: number | undefined;
    let failures = 0;
    for (;;) {
      let opened;
      try {
        opened = await fetchClient.GET("/v1/analysis/{id}/stream", {
          params: { path: { id: analysisId }, header: lastEventId === undefined ? undefined : { "Last-Event-ID": lastEventId } },
          headers: { Accept: "text/event-stream" },
          parseAs: "stream",
          signal,
          ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
        });
      } catch (e) {
        if (signal?.aborted) return; // aborted while opening
        throw e;
      }
      const { data, error, response } = opened;
      if (!response.ok) throw toApiError(response, error);
      if (response.status === 204) return; // a finished analysis whose last event `lastEventId` names: nothing more
      const type = response.headers.get("Content-Type");
      if (type && !/^text\/event-stream\b/i.test(type)) {
        void data?.cancel().catch(() => {});
        throw new StreamError(`the event stream of analysis ${analysisId} answered ${type}, not text/event-stream`);
      }
      let cause: unknown;
      if (data) {
        try {
          for await (const message of readEventStream(data, signal, (ms) => (serverRetryMs = ms))) {
            const event = toAnalysisStreamEvent(message);
            if (!event) continue;
            if (message.id) lastEventId = message.id;
            failures = 0;
            yield event;
            if (isFinalEvent(event)) return;
          }
        } catch (e) {
          if (e instanceof StreamError) throw e;
          cause = e; // the connection broke: reconnect below
        }
      }
      if (signal?.aborted) return;
      if (++failures > maxReconnects) {
        throw new StreamError(`the event stream of analysis ${analysisId} ended before its last event`, { cause });
      }
      try {
        await sleep(timers, serverRetryMs ?? backoffMs(policy, failures), signal);
      } catch {
        return; // aborted while waiting
      }
    }
  }

  function streamingUrl(path: string, params: { path?: Record<string, unknown>; query?: Record<string, unknown> } = {}): string {
    return createFinalURL(path, {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      params,
      querySerializer: createQuerySerializer(),
      pathSerializer: defaultPathSerializer,
    });
  }

  async function webSocketUrl(path: string, params?: object): Promise<string> {
    return withToken(streamingUrl(path, params), await creds.queryToken(), true);
  }

  const extras: Omit<ApiClient, keyof Client<paths>> = {
    paginate: paginate as ApiClient["paginate"],
    pages: pages as ApiClient["pages"],
    streamAnalysisEvents,
    async eventSourceUrl(analysisId) {
      return withToken(streamingUrl("/v1/analysis/{id}/stream", { path: { id: analysisId } }), await creds.queryToken(), false);
    },
    webSocketUrl: webSocketUrl as ApiClient["webSocketUrl"],
    async openWebSocket(path: string, ...init: [{ params?: object; protocols?: string | string[]; signal?: AbortSignal }?]) {
      const o = init[0] ?? {};
      const url = await webSocketUrl(path, o.params);
      const WebSocketClass = await webSocketClass(options.WebSocket);
      o.signal?.throwIfAborted();
      const socket = new WebSocketClass(url, o.protocols);
      o.signal?.addEventListener("abort", () => socket.close(), { once: true });
      return socket;
    },
    streamUpload({ query, body, signal, ...call }) {
      return fetchClient.POST("/v1/analysis/stream-upload", {
        params: { query },
        body: body as never,
        headers: { "Content-Type": "application/octet-stream" },
        signal,
        ...call,
      }) as Promise<StreamUploadResult>;
    },
  };
  return Object.assign(fetchClient, extras) as unknown as ApiClient;
}
