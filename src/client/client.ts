// createClient: an openapi-fetch client typed by the contract, whose `fetch` adds credentials, timeouts and
// retries, plus streamed uploads. Pagination (pagination.ts), the SSE event stream (streaming.ts) and WebSockets
// (websocket.ts) are functions of their own that take the client, so that a bundle leaves them out unless it
// imports them.
//
// Errors: calls keep openapi-fetch's `{ data, error, response }` result (nothing is thrown for a non-2xx
// answer, and `error` is typed by the contract's error bodies); `unwrap(result)` turns a failure into a thrown
// `ApiError`. The helpers that return iterators (`paginate`, `pages`, `streamAnalysisEvents`) throw `ApiError`.
import createFetchClient, {
  createQuerySerializer,
  defaultBodySerializer,
  type BodySerializer,
  type Client,
  type FetchResponse,
  type HeadersOptions,
  type Middleware,
  type QuerySerializer,
  type QuerySerializerOptions,
} from "openapi-fetch";
import type { paths } from "../../generated/schema.js";
import { endAttemptOf } from "./attempt.js";
import { CredentialsError } from "./errors.js";
import { INTERNALS, type ClientInternals } from "./internals.js";
import type { RateLimit } from "./rate-limit.js";
import { systemTimers, type Timers } from "./timers.js";
import {
  AS_STREAM,
  CALLER_SIGNAL,
  checkTimeout,
  createTransport,
  DEFAULT_TIMEOUT_MS,
  RETRY_DEFAULTS,
  resolveRetry,
  type CallOptions,
  type FetchFn,
  type RetryOptions,
} from "./transport.js";
import type { ClientMethod } from "./types.js";
import type { WebSocketConstructor } from "./websocket.js";

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


const CALL_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

type CallInit = { signal?: AbortSignal | null; parseAs?: string; [key: string]: unknown } | undefined;

/**
 * The init of a call as the transport needs it: with the caller's signal also under CALLER_SIGNAL, and
 * AS_STREAM set for `parseAs: "stream"` (transport.ts). The same object when neither applies (the common case).
 */
function transportInit(init: CallInit): CallInit {
  if (!init || (!init.signal && init.parseAs !== "stream")) return init;
  return { ...init, [CALLER_SIGNAL]: init.signal ?? undefined, [AS_STREAM]: init.parseAs === "stream" };
}

/**
 * Wraps the call methods: each passes its init on through `transportInit` and, unless the body is read as a
 * stream, ends the call's attempt once openapi-fetch has read the body (`endAttemptOf`, attempt.ts). Also wraps
 * `use`/`eject` to track the middleware registered.
 */
function wrapCalls(c: Client<paths>, middleware: Set<Middleware>): void {
  type Result = Promise<{ response: Response }>;
  type Call = (...args: unknown[]) => Result;
  const finish = (result: Result, init: CallInit) => (init?.parseAs === "stream" ? result : result.then(endAttemptOf));
  const methods = c as unknown as Record<string, Call>;
  for (const name of CALL_METHODS) {
    const call = methods[name]!;
    methods[name] = (url, init) => finish(call(url, transportInit(init as CallInit)), init as CallInit);
  }
  const request = methods.request!;
  methods.request = (method, url, init) => finish(request(method, url, transportInit(init as CallInit)), init as CallInit);
  const { use, eject } = c;
  c.use = (...m) => {
    for (const x of m) middleware.add(x);
    use(...m);
  };
  c.eject = (...m) => {
    for (const x of m) middleware.delete(x);
    eject(...m);
  };
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

  const middleware = new Set<Middleware>();
  const fetchClient = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    // A function is used as it is; options would make openapi-fetch build a serializer on every call.
    querySerializer: typeof options.querySerializer === "function" ? options.querySerializer : createQuerySerializer(options.querySerializer),
    fetch: createTransport({
      fetch: send,
      timers,
      timeoutMs,
      retry,
      authenticate: creds.authenticate,
      streamedBodies,
      hasMiddleware: () => middleware.size > 0,
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
  wrapCalls(fetchClient, middleware);
  if (options.middleware?.length) fetchClient.use(...options.middleware);

  const extras: Omit<ApiClient, keyof Client<paths>> = {
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
  const internals: ClientInternals = {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    queryToken: creds.queryToken,
    timers,
    retry,
    WebSocket: options.WebSocket,
  };
  Object.defineProperty(fetchClient, INTERNALS, { value: internals });
  return Object.assign(fetchClient, extras) as unknown as ApiClient;
}
