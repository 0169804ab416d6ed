// The `fetch` that openapi-fetch calls, underneath its middleware: credentials, per-attempt timeout and
// retries. Middleware therefore sees one request and one response per call, and never the credentials.
//
// Written by hand because openapi-fetch has no retry or timeout of its own, and a generic retry library would
// not know this contract's rules (Retry-After on 429, backoff on 500, the streamed-body exception).
// It is on every request's path, so the common case (GET, no body) allocates only an AbortController, the
// init object and a timer.
import { rememberRequest, TimeoutError, urlPath } from "./errors.js";
import { retryAfterSeconds } from "./rate-limit.js";
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
  /** Time to wait for each attempt's response headers, then for each chunk of its body; 0 or Infinity waits forever. */
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
}

type CallRequest = Request & CallOptions;

/** Drains a response we will not hand out, so its connection can be reused. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

const EVENT_STREAM = /^\s*text\/event-stream/i;

/**
 * An attempt's response with its body still under the attempt's timeout: each chunk must arrive within the
 * timeout of the one before (an idle timeout, so long downloads that keep flowing are fine), else the attempt is
 * aborted and reading the body fails with TimeoutError. Without it, a body that stalls after the headers is
 * awaited forever. Event streams are exempt: they are quiet for long by design, and streamAnalysisEvents has
 * its own reconnects.
 */
function bodyUnderTimeout(response: Response, t: { rearm(): void; clear(): void; failure(e: unknown): unknown }): Response {
  if (!response.body || EVENT_STREAM.test(response.headers.get("content-type") ?? "")) {
    t.clear();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        t.clear();
        throw t.failure(e);
      }
      if (chunk.done) {
        t.clear();
        controller.close();
      } else {
        t.rearm();
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      t.clear();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export function createTransport(o: TransportOptions) {
  const { timers } = o;

  /**
   * One attempt. With a timeout, the attempt gets its own signal, aborted by the timer or by the caller's
   * signal; without one, the request goes with its own signal (the caller's) and costs nothing extra.
   */
  async function attempt(request: Request, body: ArrayBuffer | undefined, ext: object | undefined, timeoutMs: number) {
    if (!(timeoutMs > 0 && timeoutMs !== Infinity)) return o.fetch(request, body ? { ...ext, body } : ext);
    const outer = request.signal;
    const ctrl = new AbortController();
    // Stays after the response: aborting later still cancels the body download (e.g. an event stream).
    outer.addEventListener("abort", () => ctrl.abort(outer.reason));
    let timedOut = false;
    const timeoutError = () => new TimeoutError(request.method, urlPath(request.url), timeoutMs);
    const onTimeout = () => {
      timedOut = true;
      ctrl.abort(timeoutError());
    };
    let timer = timers.setTimeout(onTimeout, timeoutMs);
    const clear = () => timers.clearTimeout(timer);
    const init: RequestInit = { ...ext, signal: ctrl.signal };
    if (body) init.body = body;
    let response: Response;
    try {
      response = await o.fetch(request, init);
    } catch (e) {
      clear();
      throw timedOut ? timeoutError() : e;
    }
    const rearm = () => {
      clear();
      timer = timers.setTimeout(onTimeout, timeoutMs);
    };
    return bodyUnderTimeout(response, { rearm, clear, failure: (e) => (timedOut ? timeoutError() : e) });
  }

  return async function transport(request: Request, ext?: Record<string, unknown>): Promise<Response> {
    const call = request as CallRequest;
    const timeoutMs = call.timeoutMs === undefined ? o.timeoutMs : checkTimeout("timeoutMs", call.timeoutMs);
    let retry = call.retry === undefined ? o.retry : resolveRetry(call.retry, o.retry);
    const outer = request.signal;

    // Keep the body for re-sending only when a retry may happen and the body is not a caller's stream.
    let body: ArrayBuffer | undefined;
    if (request.body !== null) {
      if (o.streamedBodies.has(request.body)) retry = null;
      else if (retry) body = await request.arrayBuffer();
    }
    const started = retry ? timers.now() : 0;

    for (let n = 1; ; n++) {
      if (outer.aborted) throw abortReason(outer);
      const auth = o.authenticate(request.headers);
      if (auth) await auth;

      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await attempt(request, body, ext, timeoutMs);
      } catch (e) {
        failure = e;
      }

      // What to do next: hand out, or wait `wait` ms and try again.
      let wait: number | undefined;
      if (response) {
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
