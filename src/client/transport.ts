// The `fetch` that openapi-fetch calls, underneath its middleware: credentials, per-attempt timeout and
// retries. Middleware therefore sees one request and one response per call, and never the credentials.
//
// Written by hand because openapi-fetch has no retry or timeout of its own, and a generic retry library would
// not know this contract's rules (Retry-After on 429, backoff on 500, the streamed-body exception).
// It is on every request's path, so the common case (GET, no body) allocates only the attempt's timeout (an
// AbortController and one timer) and the init object.
import { rememberRequest, TimeoutError, urlPath } from "./errors.js";
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
  /** Told the rate-limit headers of every response that has them, retried attempts included. */
  onRateLimit?: ((rateLimit: RateLimit, response: Response) => void) | undefined;
}

type CallRequest = Request & CallOptions;

const EVENT_STREAM = /^\s*text\/event-stream/i;

/**
 * The timeout of one attempt: an abort controller for its fetch and one timer, first on the response headers,
 * then on the body. Moving the deadline (headers in, a chunk in) only writes a number; the timer, when it fires
 * early, re-arms itself for what is left. A class, not closures: it is on every request's path.
 */
class AttemptTimeout {
  readonly ctrl = new AbortController();
  timedOut = false;
  private deadline: number;
  private timer: unknown;
  private readonly fire = () => {
    const left = this.deadline - this.timers.now();
    if (left > 0) return this.arm(left);
    this.timedOut = true;
    this.ctrl.abort(this.error());
  };

  constructor(
    private readonly timers: Timers,
    private readonly ms: number,
    private readonly method: string,
    private readonly url: string,
  ) {
    this.deadline = timers.now() + ms;
    this.arm(ms);
  }

  private arm(ms: number): void {
    this.timer = this.timers.setTimeout(this.fire, ms);
    // A timeout never keeps a process alive by itself: the I/O it watches does, while it is pending.
    (this.timer as { unref?: () => void } | null)?.unref?.();
  }

  /** The attempt is over: no more waiting. */
  clear(): void {
    this.timers.clearTimeout(this.timer);
  }

  /** Something arrived: the next thing has `ms` from now. */
  extend(): void {
    this.deadline = this.timers.now() + this.ms;
  }

  error(): TimeoutError {
    return new TimeoutError(this.method, urlPath(this.url), this.ms);
  }

  /** What to throw for a failure of the attempt: the TimeoutError if the timer fired, else the failure itself. */
  failure(e: unknown): unknown {
    return this.timedOut ? this.error() : e;
  }
}

/*
 * A response's body under its attempt's timeout. Without it, a body that stalls after the headers is awaited
 * forever. The response object is kept (a new Response around a wrapping stream costs more than all the rest of a
 * call) and given a prototype whose body readers watch the timeout:
 *  - a body read whole (`json`, `text`, `arrayBuffer`, `blob`, `formData`, `bytes`; what openapi-fetch does) must
 *    arrive within the timeout of its headers; the timer is cleared once it has;
 *  - a body read as a stream (`response.body`, i.e. `parseAs: "stream"`) is wrapped on first access, and each
 *    chunk must arrive within the timeout of the one before: long downloads that keep flowing never time out.
 * Event streams are exempt (quiet for long by design; streamAnalysisEvents has its own reconnects), and so are
 * responses without a body.
 */
const TIMEOUT = Symbol("attempt timeout");
const STREAM = Symbol("body under timeout");
type Timed = Response & { [TIMEOUT]: AttemptTimeout; [STREAM]?: ReadableStream<Uint8Array> | null };
const READERS = ["json", "text", "arrayBuffer", "blob", "formData", "bytes"] as const;

/** The prototype of a response with its body under the timeout, one per response class (fetch polyfills have their own). */
const timedPrototypes = new WeakMap<object, object>();

/** The getter of `name` on `proto` or the first prototype above it that has one. */
function inheritedGetter(proto: object | null, name: string): (() => unknown) | undefined {
  for (; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (d) return d.get;
  }
  return undefined;
}

function timedPrototype(base: object): object {
  let proto = timedPrototypes.get(base);
  if (proto) return proto;
  const rawBody = inheritedGetter(base, "body");
  if (!rawBody) throw new TypeError("the fetch's Response has no body getter");
  proto = Object.create(base, {
    body: {
      configurable: true,
      get(this: Timed) {
        if (this[STREAM] === undefined) {
          const raw = rawBody.call(this) as ReadableStream<Uint8Array> | null;
          this[STREAM] = raw && chunksUnderTimeout(raw, this[TIMEOUT]);
        }
        return this[STREAM];
      },
    },
  }) as object;
  for (const name of READERS) {
    const read = (base as Record<string, unknown>)[name];
    if (typeof read !== "function") continue;
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      async value(this: Timed) {
        const t = this[TIMEOUT];
        try {
          return await read.call(this);
        } catch (e) {
          throw t.failure(e);
        } finally {
          t.clear();
        }
      },
    });
  }
  timedPrototypes.set(base, proto);
  return proto;
}

/** `raw`, with each chunk awaited under the timeout (extended for the next chunk). */
function chunksUnderTimeout(raw: ReadableStream<Uint8Array>, t: AttemptTimeout): ReadableStream<Uint8Array> {
  const reader = raw.getReader();
  return new ReadableStream<Uint8Array>({
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
        t.extend();
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      t.clear();
      return reader.cancel(reason);
    },
  });
}

function underTimeout(response: Response, t: AttemptTimeout): Response {
  // No body (a 204, an answer to HEAD: fetch gives them a null body) or an event stream: nothing more to time.
  if (!response.body || EVENT_STREAM.test(response.headers.get("content-type") ?? "")) {
    t.clear();
    return response;
  }
  t.extend();
  (response as Timed)[TIMEOUT] = t;
  Object.setPrototypeOf(response, timedPrototype(Object.getPrototypeOf(response) as object));
  return response;
}

/** Drains a response we will not hand out, so its connection can be reused (and stops its timer, if any). */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

export function createTransport(o: TransportOptions) {
  const { timers } = o;

  /**
   * One attempt. With a timeout, the attempt gets its own signal, aborted by the timer or by the caller's
   * signal; without one (see `transport`), the request goes with its own signal (the caller's) and costs nothing
   * extra.
   */
  async function timedAttempt(request: Request, body: ArrayBuffer | undefined, ext: object | undefined, timeoutMs: number) {
    const t = new AttemptTimeout(timers, timeoutMs, request.method, request.url);
    const outer = request.signal;
    // Stays after the response: aborting later still cancels the body download (e.g. an event stream).
    outer.addEventListener("abort", () => t.ctrl.abort(outer.reason));
    const init: RequestInit = { ...ext, signal: t.ctrl.signal };
    if (body) init.body = body;
    let response: Response;
    try {
      response = await o.fetch(request, init);
    } catch (e) {
      t.clear();
      throw t.failure(e);
    }
    return underTimeout(response, t);
  }

  return async function transport(request: Request, ext?: Record<string, unknown>): Promise<Response> {
    const call = request as CallRequest;
    const timeoutMs = call.timeoutMs === undefined ? o.timeoutMs : checkTimeout("timeoutMs", call.timeoutMs);
    let retry = call.retry === undefined ? o.retry : resolveRetry(call.retry, o.retry);
    const outer = request.signal;
    const timed = timeoutMs > 0 && timeoutMs !== Infinity;

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
        response = await (timed ? timedAttempt(request, body, ext, timeoutMs) : o.fetch(request, body ? { ...ext, body } : ext));
      } catch (e) {
        failure = e;
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
