// Typed errors. HTTP failures become an `ApiError` (or its subclasses `ValidationError` for 422 and
// `RateLimitError` for 429); the client's own failures have their own classes. No message ever carries a
// credential: messages are built from the method, the URL path (never the query) and the server's `detail`.
import type { components } from "../../generated/schema.js";
import { retryAfterSeconds } from "./options.js";

export type ErrorBody = components["schemas"]["Error"];
export type ValidationErrorItem = components["schemas"]["ValidationErrorItem"];
/**
 * The body of a 422 validation failure: the contract's `ValidationError` whose `detail` is the list of items (the
 * other 422, `idempotency_key_reused`, has a string `detail` and becomes a plain `ApiError`).
 */
export type ValidationErrorBody = Omit<components["schemas"]["ValidationError"], "detail" | "error"> & { detail: ValidationErrorItem[] };
export type RateLimitErrorBody = components["schemas"]["RateLimitError"];

/** What kind of failure an `ApiError` is; one per status the contract documents, `http` for any other. */
export type ApiErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "validation"
  | "rate_limited"
  | "server"
  | "http";

const KIND_BY_STATUS: Readonly<Record<number, ApiErrorKind>> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  422: "validation",
  429: "rate_limited",
};

export function kindOfStatus(status: number): ApiErrorKind {
  return KIND_BY_STATUS[status] ?? (status >= 500 ? "server" : "http");
}

/** Method and path (no query string) of the request a response answered. */
interface RequestLine {
  method: string;
  path: string;
}
/** The request a failed response answered: recorded by the transport for non-2xx responses only. */
const requests = new WeakMap<Response, Request>();

/** Remembers which request a failed response answered, so `ApiError` can name it (the path only, never the query). */
export function rememberRequest(response: Response, request: Request): void {
  requests.set(response, request);
}

/** The path of a URL, without scheme, host, query or fragment (queries may carry secrets). */
export function urlPath(url: string): string {
  return new URL(url, "http://h").pathname;
}

/** The header naming the request on every answer (the contract's `x-request-id`, decision RQ1). */
export const REQUEST_ID_HEADER = "X-Request-Id";

export class ApiError extends Error {
  override name = "ApiError";
  readonly kind: ApiErrorKind;
  readonly status: number;
  /** The server's `detail`; for a 422, its items joined into one line. */
  readonly detail: string;
  /** The parsed error body (JSON when it was JSON, else the text). */
  readonly body: unknown;
  /** Method and path of the request (no query string). */
  readonly method: string;
  readonly path: string;
  /** The answer's `X-Request-Id`, to quote to support; null when the server sent none. */
  readonly requestId: string | null;
  /** The response itself (headers such as `X-RateLimit-*` included). Not enumerable, to keep logs short. */
  declare readonly response: Response;

  constructor(response: Response, body: unknown, detail: string, request?: RequestLine) {
    const sent = requests.get(response);
    const line = request ?? { method: sent?.method ?? "", path: urlPath(sent?.url ?? response.url) };
    const where = line.method ? `${line.method} ${line.path}` : line.path;
    super(`${where} failed with ${response.status}: ${detail}`);
    this.kind = kindOfStatus(response.status);
    this.status = response.status;
    this.detail = detail;
    this.body = body;
    this.method = line.method;
    this.path = line.path;
    this.requestId = response.headers.get(REQUEST_ID_HEADER);
    Object.defineProperty(this, "response", { value: response, enumerable: false });
  }
}

/** 422: the request failed schema validation; `errors` lists one item per invalid field. */
export class ValidationError extends ApiError {
  override name = "ValidationError";
  declare readonly kind: "validation";
  readonly errors: ValidationErrorItem[];

  constructor(response: Response, body: ValidationErrorBody, request?: RequestLine) {
    super(response, body, body.detail.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "), request);
    this.errors = body.detail;
  }
}

/** 429: a rate limit was exceeded. Fields as in the contract's `RateLimitError` body. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  declare readonly kind: "rate_limited";
  /** `rate_limit_exceeded` (per minute) or `daily_limit_exceeded`. */
  readonly error: RateLimitErrorBody["error"];
  readonly limit: number;
  readonly window: RateLimitErrorBody["window"];
  /** Seconds to wait (the body's `retry_after`, else the `Retry-After` header). */
  readonly retry_after: number;

  constructor(response: Response, body: RateLimitErrorBody, request?: RequestLine) {
    super(response, body, body.detail, request);
    this.error = body.error;
    this.limit = body.limit;
    this.window = body.window;
    this.retry_after = body.retry_after;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function isValidationBody(v: unknown): v is ValidationErrorBody {
  return (
    isObject(v) &&
    Array.isArray(v.detail) &&
    v.detail.every((i) => isObject(i) && Array.isArray(i.loc) && typeof i.msg === "string" && typeof i.type === "string")
  );
}

function rateLimitBody(v: unknown, response: Response): RateLimitErrorBody | undefined {
  if (!isObject(v) || typeof v.detail !== "string") return undefined;
  if (v.error !== "rate_limit_exceeded" && v.error !== "daily_limit_exceeded") return undefined;
  const retry_after = typeof v.retry_after === "number" ? v.retry_after : (retryAfterSeconds(response.headers) ?? 0);
  return { ...v, retry_after } as RateLimitErrorBody;
}

const MAX_TEXT_DETAIL = 200;

function detailOf(body: unknown, response: Response): string {
  if (isObject(body) && typeof body.detail === "string") return body.detail;
  if (typeof body === "string" && body.trim()) {
    const text = body.trim().replace(/\s+/g, " ");
    return text.length > MAX_TEXT_DETAIL ? text.slice(0, MAX_TEXT_DETAIL) + "…" : text;
  }
  return response.statusText || `HTTP ${response.status}`;
}

/** Builds the typed error for a non-2xx response and its parsed body. */
export function toApiError(response: Response, body: unknown): ApiError {
  if (response.status === 422 && isValidationBody(body)) return new ValidationError(response, body);
  if (response.status === 429) {
    const rl = rateLimitBody(body, response);
    if (rl) return new RateLimitError(response, rl);
  }
  return new ApiError(response, body, detailOf(body, response));
}

/** What every openapi-fetch call resolves to. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success data of a result type (never for the error branch). */
export type DataOf<R> = R extends { data: infer D } ? D : never;

/**
 * The `throwOnError` helper: resolves to `data` of a 2xx result, throws the typed `ApiError` otherwise.
 * `const analysis = await unwrap(client.GET("/v1/analyses/{analysis_id}", {...}))`.
 */
export async function unwrap<R extends FetchResult>(result: R | Promise<R>): Promise<DataOf<R>> {
  const r = await result;
  if (!r.response.ok) throw toApiError(r.response, r.error);
  return r.data as DataOf<R>;
}

/** No usable credentials: raised before any request is sent. */
export class CredentialsError extends Error {
  override name = "CredentialsError";
}

/** An attempt got no response headers within `timeoutMs`. */
export class TimeoutError extends Error {
  override name = "TimeoutError";
  declare readonly method: string;
  declare readonly path: string;
  declare readonly timeoutMs: number;
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path} got no response within ${timeoutMs} ms`);
    Object.assign(this, { method, path, timeoutMs });
  }
}

/** A token would have been put into a URL that is not sent over TLS (interface specification, rule 7). */
export class InsecureTransportError extends Error {
  override name = "InsecureTransportError";
}

/** The event stream sent something the contract does not allow (e.g. a `data:` line that is not JSON). */
export class StreamError extends Error {
  override name = "StreamError";
}
