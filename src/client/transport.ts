// The `fetch` that openapi-fetch calls, underneath its middleware: credentials, per-attempt timeout and
// retries. Middleware therefore sees one request and one response per call, and never the credentials.
//
// Written by hand because openapi-fetch has no retry or timeout of its own, and a generic retry library would
// not know this contract's rules (Retry-After on 429, backoff on 500, the streamed-body exception).
// It is on every request's path: the common case (GET, no body) allocates nothing of its own; the attempt's
// timeout (attempt.ts) is reused from the previous attempt.
import { createTimeouts } from "./attempt.js";
import { rememberRequest } from "./errors.js";
import { failedBeforeSending, unsafeToResend } from "./idempotency.js";
import type { Middleware } from "openapi-fetch";
import type { ClientInternals } from "./internals.js";
import type { RateLimit } from "./headers.js";
import { onDemand } from "./on-demand.js";
import { backoffMs, checked, resolveRetry, retryAfterSeconds, type CallOptions, type ResolvedRetry } from "./options.js";
import { sleep, type Timers } from "./timers.js";

export type FetchFn = (input: Request, init?: RequestInit) => Promise<Response>;

/** What the transport needs of its client; also the client's internals (internals.ts). */
export interface TransportOptions extends ClientInternals {
  fetch: FetchFn;
  timeoutMs: number;
  /** Sets the credentials on each attempt's headers; may throw `CredentialsError`. */
  authenticate: (headers: Headers) => void | Promise<void>;
  /** Request bodies that are caller-supplied streams: sent once, never buffered or retried. */
  streamedBodies: WeakSet<object>;
  /** The middleware registered (it may replace the request, dropping what the call methods put on it). */
  middleware: Set<Middleware>;
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

/**
 * How long to wait before attempt n + 1 after `response` (or the network error `failure`), or undefined not to
 * retry. A POST or PATCH without an Idempotency-Key (idempotency.ts) is retried only when the server cannot have
 * acted on it: a connection that never opened, or a 429.
 */
function retryWait(retry: ResolvedRetry, n: number, request: Request, response: Response | undefined, failure: unknown): number | undefined {
  if (n >= retry.maxAttempts) return undefined;
  if (!response) return retry.retryNetworkErrors && (failedBeforeSending(failure) || !unsafeToResend(request)) ? backoffMs(retry, n) : undefined;
  if (response.status === 429 && retry.retryRateLimited) {
    const after = retryAfterSeconds(response.headers);
    return after === undefined ? backoffMs(retry, n) : after * 1000 + retry.random() * retry.baseDelayMs;
  }
  return retry.retryStatuses.includes(response.status) && !unsafeToResend(request) ? backoffMs(retry, n) : undefined;
}

export function createTransport(o: TransportOptions) {
  const { timers, onRateLimit } = o;
  const timeouts = createTimeouts(timers);
  if (onRateLimit) void rateLimits.load();

  async function transport(request: Request, ext?: Record<string, unknown>): Promise<Response> {
    const call = request as CallRequest;
    const timeoutMs = call.timeoutMs === undefined ? o.timeoutMs : checked("timeoutMs", call.timeoutMs);
    let retry = call.retry === undefined ? o.retry : resolveRetry(call.retry, o.retry);
    const outer = request.signal;
    const timed = timeoutMs > 0 && timeoutMs !== Infinity;
    // The signal a timed attempt follows besides its own: the caller's, as the client's call methods pass it on;
    // with middleware, which may hand on a new Request without that, the request's own (it follows the caller's).
    const middleware = o.middleware.size > 0;
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
      outer.throwIfAborted();
      const auth = o.authenticate(request.headers);
      if (auth) await auth;

      let response: Response | undefined;
      let failure: unknown;
      // Written out here rather than in a helper: an extra async function per attempt shows in npm run bench.
      const a = timed ? timeouts.start(request, timeoutMs, n === 1 ? started : timers.now(), callerSignal) : undefined;
      try {
        response = await o.fetch(request, ext || body ? { ...ext, ...a?.init, body } : a?.init);
        // If body-timeout.js cannot be loaded (a browser gone offline), the body keeps the deadline of its headers.
        if (a && timeouts.headersIn(response, a, asStream)) (bodyTimeout.value ?? (await bodyTimeout.load()))?.watchBody(response, a, timeouts.body);
      } catch (e) {
        if (a) timeouts.end(a, false);
        failure = a?.error ?? e;
      }

      if (response) {
        o.latest = response;
        if (onRateLimit) {
          // Not told when headers.js cannot be loaded, as when the headers are malformed: the answer itself is fine.
          const rateLimit = (rateLimits.value ?? (await rateLimits.load()))?.rateLimitOf(response.headers);
          if (rateLimit) onRateLimit(rateLimit, response);
        }
        if (response.ok) return response;
      } else outer.throwIfAborted();

      let wait = retry ? retryWait(retry, n, request, response, failure) : undefined;
      if (wait !== undefined && timers.now() - started + wait > retry!.maxElapsedMs) wait = undefined;
      if (wait === undefined) {
        if (!response) throw failure;
        rememberRequest(response, request);
        return response;
      }
      // Drains a response we will not hand out, so its connection can be reused.
      if (response) {
        if (a) timeouts.end(a, false);
        response.body?.cancel().catch(() => {});
      }
      await sleep(timers, wait, outer);
    }
  }
  return { transport, endOf: timeouts.endOf };
}

/** The body timeout for bodies read as a stream, loaded the first time one is (body-timeout.ts). */
const bodyTimeout = onDemand(() => import("./body-timeout.js"));
/** The rate-limit parser, loaded when a client with `onRateLimit` is made (headers.ts). */
const rateLimits = onDemand(() => import("./headers.js"));
