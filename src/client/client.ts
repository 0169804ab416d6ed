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
import { WRITE_METHODS } from "./contract.generated.js";
import { CredentialsError } from "./errors.js";
import { IDEMPOTENCY_HEADER } from "./idempotency.js";
import { INTERNALS } from "./internals.js";
import type { RateLimit } from "./headers.js";
import { checked, DEFAULT_TIMEOUT_MS, RETRY_DEFAULTS, resolveRetry, type CallOptions, type RetryOptions } from "./options.js";
import { systemTimers, type Timers } from "./timers.js";
import { AS_STREAM, CALLER_SIGNAL, createTransport, type FetchFn, type TransportOptions } from "./transport.js";
import type { ClientMethod, WebSocketConstructor } from "./types.js";

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
  /**
   * Serializer of JSON bodies. Streams, Blobs, byte arrays and FormData are always sent as they are, and a string
   * under a content type other than JSON (on the contract's methods with a body: POST, PUT, PATCH; write.ts).
   */
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
  /**
   * Opt-in response validation: `responseValidator()` of `@avt/api-contract/zod` checks each JSON response body
   * against its operation's schema in the contract and makes the call throw a `ResponseValidationError` naming the
   * operation and the JSON path of the first problem. Off by default; the client itself never loads zod (decision FE5).
   */
  validate?: ResponseValidator;
}

/** A response check run once per call, after any other middleware has seen the response (an openapi-fetch middleware). */
export type ResponseValidator = Middleware & { onResponse: NonNullable<Middleware["onResponse"]> };

type StreamUploadQuery = paths["/v1/analysis/stream-upload"]["post"]["parameters"]["query"];
type StreamUploadResult = FetchResponse<paths["/v1/analysis/stream-upload"]["post"], {}, `${string}/${string}`>;

export interface StreamUploadOptions extends CallOptions {
  /** The upload's options (`media_type`, `title`, `features`, ...). */
  query: StreamUploadQuery;
  /** The media. A `ReadableStream` is streamed as it is produced and never retried; other bodies are retried. */
  body: ReadableStream<Uint8Array> | Blob | ArrayBuffer | ArrayBufferView | string;
  signal?: AbortSignal;
}

/**
 * The client: openapi-fetch's `Client<paths>` (every method it has, OPTIONS, HEAD and TRACE included, so that the
 * openapi-fetch family's bindings such as openapi-react-query take it as it is), whose methods also accept the
 * per-call options, plus streamed uploads.
 */
export interface ApiClient {
  GET: ClientMethod<"get">;
  PUT: ClientMethod<"put">;
  POST: ClientMethod<"post">;
  DELETE: ClientMethod<"delete">;
  OPTIONS: ClientMethod<"options">;
  HEAD: ClientMethod<"head">;
  PATCH: ClientMethod<"patch">;
  TRACE: ClientMethod<"trace">;
  request: Client<paths>["request"];
  use: Client<paths>["use"];
  eject: Client<paths>["eject"];
  /** POST /v1/analysis/stream-upload with a body of any length, sent as `application/octet-stream`. */
  streamUpload(options: StreamUploadOptions): Promise<StreamUploadResult>;
}

const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** `value`, if it is a usable credential; the message never carries the value itself. */
function credential(name: string, value: unknown): string {
  if (typeof value !== "string" || !HEADER_SAFE.test(value)) throw new CredentialsError(`${name} must be a non-empty string of visible ASCII characters`);
  return value;
}

interface Credentials {
  /** Sets the credentials on an attempt's headers; may throw `CredentialsError`. */
  authenticate(headers: Headers): void | Promise<void>;
  /** The credential for the `token` query parameter. */
  queryToken(): Promise<string>;
}

function credentials({ apiKey, token }: ClientOptions): Credentials {
  if ((apiKey === undefined) === (token === undefined)) throw new CredentialsError(apiKey === undefined ? "no credentials: pass apiKey or token" : "pass apiKey or token, not both");
  if (typeof token === "function") {
    const fresh = async () => credential("the token function's result", await token());
    return { authenticate: async (h) => h.set(AUTHORIZATION_HEADER, `Bearer ${await fresh()}`), queryToken: fresh };
  }
  const value = credential(token === undefined ? "apiKey" : "token", apiKey ?? token);
  const [name, sent] = token === undefined ? [API_KEY_HEADER, value] : [AUTHORIZATION_HEADER, `Bearer ${value}`];
  return { authenticate: (h) => h.set(name, sent), queryToken: async () => value };
}

type JsonSerializer = (body: unknown, headers?: unknown) => unknown;
type CallInit = { signal?: AbortSignal | null; parseAs?: string; [key: string]: unknown } | undefined;
type Result = Promise<{ response: Response }>;

/** The write path (write.ts), loaded the first time a call needs it and kept (decision C9). */
let writePath: typeof import("./write.js") | undefined;

/**
 * A write's init (write.ts: its Idempotency-Key and its form body, when the operation takes either); a read's `init`
 * as it is. A promise only while write.ts is first loaded (if it cannot be, the call fails with that error, unsent).
 */
function write(method: string, url: unknown, init: CallInit): CallInit | Promise<CallInit> {
  if (!WRITE_METHODS.includes(method)) return init;
  if (writePath) return writePath.write(method, String(url), init, IDEMPOTENCY_HEADER) as CallInit;
  return import("./write.js").then((m) => (writePath = m).write(method, String(url), init, IDEMPOTENCY_HEADER) as CallInit);
}

/**
 * Wraps the call methods (`GET`, …, and `request`): each passes the caller's signal on to the transport under
 * CALLER_SIGNAL, and sets AS_STREAM for `parseAs: "stream"` (the same init when neither applies, the common case);
 * and, unless the body is read as a stream, ends the call's attempt with `endOf` once openapi-fetch has read the
 * body (attempt.ts). Also wraps `use`/`eject` to track the middleware registered.
 */
function wrapCalls(c: Client<paths>, middleware: Set<Middleware>, endOf: (r: { response: Response }) => { response: Response }): void {
  const methods = c as unknown as Record<string, (...args: unknown[]) => Result>;
  const finish = (result: Result, init: CallInit) => (init?.parseAs === "stream" ? result : result.then(endOf));
  const pass = (init: CallInit): CallInit => (!init || (!init.signal && init.parseAs !== "stream") ? init : { ...init, [CALLER_SIGNAL]: init.signal ?? undefined, [AS_STREAM]: init.parseAs === "stream" });
  for (const name of ["GET", "DELETE", "OPTIONS", "HEAD", "TRACE"]) {
    const call = methods[name]!;
    methods[name] = (url, init) => finish(call(url, pass(init as CallInit)), init as CallInit);
  }
  /** Sends a write, once its init is ready (at once, unless write.ts is still to be loaded). */
  const send = (call: (init: CallInit) => Result, method: string, url: unknown, init: CallInit): Result => {
    const ready = write(method, url, init);
    return ready instanceof Promise ? ready.then((w) => finish(call(pass(w)), init)) : finish(call(pass(ready)), init);
  };
  for (const name of ["POST", "PUT", "PATCH"]) {
    const call = methods[name]!;
    methods[name] = (url, init) => send((i) => call(url, i), name, url, init as CallInit);
  }
  const request = methods.request!;
  methods.request = (method, url, init) => send((i) => request(method, url, i), String(method).toUpperCase(), url, init as CallInit);
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
  const { baseUrl, timers = systemTimers, onRateLimit, bodySerializer = defaultBodySerializer, querySerializer } = options;
  if (typeof baseUrl !== "string") throw new TypeError("baseUrl must be a string");
  const creds = credentials(options);
  if (onRateLimit !== undefined && typeof onRateLimit !== "function") throw new TypeError("onRateLimit must be a function");

  const o: TransportOptions = {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    queryToken: creds.queryToken,
    timers,
    retry: resolveRetry(options.retry ?? {}, RETRY_DEFAULTS),
    WebSocket: options.WebSocket,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : checked("timeoutMs", options.timeoutMs),
    authenticate: creds.authenticate,
    streamedBodies: new WeakSet(),
    middleware: new Set(),
    onRateLimit,
  };
  const { transport, endOf } = createTransport(o);
  const client = createFetchClient<paths>({
    baseUrl,
    headers: options.headers,
    // A function is used as it is; options would make openapi-fetch build a serializer on every call.
    querySerializer: typeof querySerializer === "function" ? querySerializer : createQuerySerializer(querySerializer),
    fetch: transport,
    // A body's serializer is the write path's, loaded before any call of a method with a body in the contract is made
    // (WRITE_METHODS); a body on another method, outside the contract, goes to the JSON serializer.
    bodySerializer: (body: unknown, headers?: Headers | Record<string, string>) =>
      writePath ? writePath.serializeBody(body, headers, o.streamedBodies, bodySerializer as JsonSerializer) : (bodySerializer as JsonSerializer)(body, headers),
    // Lets a ReadableStream be a request body (fetch requires it then; harmless otherwise).
    ...({ duplex: "half" } as object),
  });
  wrapCalls(client, o.middleware, endOf);
  // Registered first, so its onResponse runs last (openapi-fetch runs them in reverse): it checks what the caller gets.
  if (options.validate) client.use(options.validate);
  if (options.middleware?.length) client.use(...options.middleware);

  return Object.assign(client, {
    [INTERNALS]: o,
    // In the write path (write.ts), which its POST loads anyway.
    streamUpload: async (options: StreamUploadOptions) => (writePath ??= await import("./write.js")).streamUpload(client.POST as (path: string, init: object) => Promise<StreamUploadResult>, options),
  }) as unknown as ApiClient;
}
