// The `fetch` that openapi-fetch calls, underneath its middleware: credentials, per-attempt timeout and
// retries. Middleware therefore sees one request and one response per call, and never the credentials.
//
// Written by hand because openapi-fetch has no retry or timeout of its own, and a generic retry library would
// not know this contract's rules (Retry-After on 429, backoff on 500, the streamed-body exception).
// It is on every request's path: the common case (GET, no body) allocates only the init object; the attempt's
// timeout (attempt.ts) is reused from the previous attempt.
import { AttemptPool, dropAttemptOf, underTimeout } from "./attempt.js";
import { rememberRequest } from "./errors.js";
import { rateLimitOf, retryAfterSeconds, type RateLimit } from "./rate-limit.js";
import { abortReason, sleep, type Timers } from "./timers.js";

export interface RetryOptions {
  /** Attempts in all, the first included; 1 sends once. Default 3. */
  maxAttempts?: number;
  /** Time budget of the whole call, attempts and waits included: a wait that would end after it is not started. Default 60 000. */
  maxElapsedMs?: number;
  /** First backoff wait; it doubles on each retry. Default 500. */
  baseDelayMs?: number;
  /** Longest backoff wait (a longer `Retry-After` is still honoured, within `maxElapsedMs`). Default 10 000. */
  maxDelayMs?: number;
  /** Statuses retried with exponential backoff. Default [500, 502, 503, 504]. */
  retryStatuses?: readonly number[];
  /** Retry a 429 after its `Retry-After`. Default true. */
  retryRateLimited?: boolean;
  /** Retry network errors and timeouts. Default true. */
  retryNetworkErrors?: boolean;
  /** Source of jitter, a number in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export type ResolvedRetry = Required<RetryOptions>;

export const RETRY_DEFAULTS: ResolvedRetry = {
  maxAttempts: 3,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  retryStatuses: [500, 502, 503, 504],
  retryRateLimited: true,
  retryNetworkErrors: true,
  random: Math.random,
};

export const DEFAULT_TIMEOUT_MS = 30_000;

/** Options a single call may override: `client.GET(path, { ..., timeoutMs: 5000, retry: false })`. */
export interface CallOptions {
  /** Per attempt: time to wait for the response headers, then again for the body (see `ClientOptions.timeoutMs`); 0 or Infinity waits forever. */
  timeoutMs?: number;
  /** Retry policy of this call; `false` sends once. Merged over the client's policy. */
  retry?: RetryOptions | false;
}

function positive(name: string, v: unknown, allowZero = false): void {
  if (typeof v !== "number" || Number.isNaN(v) || v < 0 || (!allowZero && v === 0)) {
    throw new TypeError(`${name} must be a ${allowZero ? "non-negative" : "positive"} number`);
  }
}

/** Merges retry options over a base policy and checks them; `false` turns retrying off. */
export function resolveRetry(options: RetryOptions | false | undefined, base: ResolvedRetry | null): ResolvedRetry | null {
  if (options === false) return null;
  if (options === undefined) return base;
  const r: ResolvedRetry = { ...(base ?? RETRY_DEFAULTS), ...options };
  if (!Number.isInteger(r.maxAttempts) || r.maxAttempts < 1) throw new TypeError("retry.maxAttempts must be an integer >= 1");
  positive("retry.maxElapsedMs", r.maxElapsedMs, true);
  positive("retry.baseDelayMs", r.baseDelayMs, true);
  positive("retry.maxDelayMs", r.maxDelayMs, true);
  return r.maxAttempts === 1 ? null : r;
}

export function checkTimeout(name: string, v: unknown): number {
  positive(name, v, true);
  return v as number;
}

/** Exponential backoff with "equal jitter": retry n waits in [d/2, d), d = min(maxDelayMs, baseDelayMs * 2^(n-1)). */
export function backoffMs(retry: ResolvedRetry, n: number): number {
  const d = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (n - 1));
  return d / 2 + retry.random() * (d / 2);
}

export type FetchFn = (input: Request, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchFn;
  timers: Timers;
  timeoutMs: number;
  retry: ResolvedRetry | null;
  /** Sets the credentials on each attempt's headers; may throw `CredentialsError`. */
  authenticate: (headers: Headers) => void | Promise<void>;
  /** Request bodies that are caller-supplied streams: sent once, never buffered or retried. */
  streamedBodies: WeakSet<object>;
  /** Whether middleware is registered (it may replace the request, dropping what the call methods put on it). */
  hasMiddleware: () => boolean;
  /** Told the rate-limit headers of every response that has them, retried attempts included. */
  onRateLimit?: ((rateLimit: RateLimit, response: Response) => void) | undefined;
}

/**
 * The init key under which the client's call methods pass the caller's `signal` on to the transport (openapi-fetch
 * copies init keys a Request does not have onto the Request, as it does `timeoutMs` and `retry`). Present only when
 * the caller passed a signal, so an attempt without one does not listen for an abort that cannot come: adding and
 * removing that listener cost more than the rest of the timeout (npm run bench).
 */
export const CALLER_SIGNAL = "callerSignal";

/** Likewise, set when the caller reads the body as a stream (`parseAs: "stream"`): see attempt.ts. */
export const AS_STREAM = "bodyAsStream";

type CallRequest = Request & CallOptions & { [CALLER_SIGNAL]?: AbortSignal; [AS_STREAM]?: boolean };

/** Drains a response we will not hand out, so its connection can be reused (and stops its timer, if any). */
function discard(response: Response): void {
  dropAttemptOf(response);
  response.body?.cancel().catch(() => {});
}

export function createTransport(o: TransportOptions) {
  const { timers } = o;
  const attempts = new AttemptPool(timers);

  return async function transport(request: Request, ext?: Record<string, unknown>): Promise<Response> {
    const call = request as CallRequest;
    const timeoutMs = call.timeoutMs === undefined ? o.timeoutMs : checkTimeout("timeoutMs", call.timeoutMs);
    let retry = call.retry === undefined ? o.retry : resolveRetry(call.retry, o.retry);
    const outer = request.signal;
    const timed = timeoutMs > 0 && timeoutMs !== Infinity;
    // The signal a timed attempt follows besides its own: the caller's, as the client's call methods pass it on;
    // with middleware, which may hand on a new Request without that, the request's own (it follows the caller's).
    const middleware = o.hasMiddleware();
    const callerSignal = call[CALLER_SIGNAL] ?? (middleware ? outer : null);
    const asStream = call[AS_STREAM] === true || middleware;

    // Keep the body for re-sending only when a retry may happen and the body is not a caller's stream.
    let body: ArrayBuffer | undefined;
    if (request.body !== null) {
      if (o.streamedBodies.has(request.body)) retry = null;
      else if (retry) body = await request.arrayBuffer();
    }
    const started = retry || timed ? timers.now() : 0;

    for (let n = 1; ; n++) {
      if (outer.aborted) throw abortReason(outer);
      const auth = o.authenticate(request.headers);
      if (auth) await auth;

      let response: Response | undefined;
      let failure: unknown;
      // Written out here rather than in a helper: an extra async function per attempt shows in npm run bench.
      if (timed) {
        // The fetch gets the attempt's signal, aborted by its timer or by the caller's signal.
        const a = attempts.start(request, timeoutMs, n === 1 ? started : timers.now(), callerSignal);
        const init: RequestInit = ext || body ? { ...ext, signal: a.signal, body } : a.init;
        try {
          response = underTimeout(await o.fetch(request, init), a, asStream);
        } catch (e) {
          a.end(false);
          failure = a.failure(e);
        }
      } else {
        try {
          response = await o.fetch(request, body ? { ...ext, body } : ext);
        } catch (e) {
          failure = e;
        }
      }

      // What to do next: hand out, or wait `wait` ms and try again.
      let wait: number | undefined;
      if (response) {
        if (o.onRateLimit) {
          const rateLimit = rateLimitOf(response);
          if (rateLimit) o.onRateLimit(rateLimit, response);
        }
        if (response.ok) return response;
        if (retry && n < retry.maxAttempts) {
          if (response.status === 429 && retry.retryRateLimited) {
            const after = retryAfterSeconds(response.headers);
            wait = after === undefined ? backoffMs(retry, n) : after * 1000 + retry.random() * retry.baseDelayMs;
          } else if (retry.retryStatuses.includes(response.status)) {
            wait = backoffMs(retry, n);
          }
        }
      } else {
        if (outer.aborted) throw abortReason(outer);
        if (retry && n < retry.maxAttempts && retry.retryNetworkErrors) wait = backoffMs(retry, n);
      }
      if (wait !== undefined && retry && timers.now() - started + wait > retry.maxElapsedMs) wait = undefined;

      if (wait === undefined) {
        if (!response) throw failure;
        rememberRequest(response, request.method, request.url);
        return response;
      }
      if (response) discard(response);
      await sleep(timers, wait, outer);
    }
  };
}
