// One attempt's timeout (decisions C4, L7): an abort signal for its fetch, aborted when the response headers do not
// arrive within the timeout, or the body after them (a body read whole within the timeout of its headers; a body
// read as a stream within the timeout of each previous chunk; an event stream is not timed once open); and the
// caller's signal, which aborts the attempt too.
//
// It is on every request's path, so it is built around what costs: on Node 20, creating an AbortSignal costs about
// a quarter of a whole openapi-fetch call, clearing and re-arming a timer over 1% (npm run bench). So the attempt
// object, its controller and its timer are kept for the next attempt of the same client once an attempt ends
// without having been aborted (the common case), instead of being made anew:
//  - a controller is handed to a new attempt only after its previous fetch is over (the body read to its end, or
//    no body), so aborting it later cannot touch an earlier request; one that aborted is never used again;
//  - the timer is not cleared when an attempt ends: it fires at the old deadline, finds the attempt idle or its
//    deadline moved, and re-arms only for an attempt in flight. Moving a deadline (headers in, a chunk in, the next
//    attempt starts) therefore only writes a number. The timer is unref'd: it never keeps a process alive;
//  - the caller's signal is linked only when the caller passed one (the transport is told so, see client.ts).
import { TimeoutError, urlPath } from "./errors.js";
import type { Timers } from "./timers.js";

/** Idle attempts a client keeps for reuse: as many as it had in flight at once, up to this. */
const POOL_MAX = 32;

export class AttemptPool {
  private readonly idle: Attempt[] = [];
  constructor(readonly timers: Timers) {}

  /**
   * An attempt of `request` timed out after `ms`, its deadline running from `now` (the clock's time, read by the
   * caller); `outer` is the caller's signal, if any.
   */
  start(request: Request, ms: number, now: number, outer: AbortSignal | null): Attempt {
    const a = this.idle.pop() ?? new Attempt(this);
    a.begin(request, ms, now, outer);
    return a;
  }

  /** Takes back an attempt that ended without aborting. */
  release(a: Attempt): void {
    if (this.idle.length < POOL_MAX) this.idle.push(a);
  }
}

const IDLE = 0;
const TIMED = 1; // in flight, under its deadline
const UNTIMED = 2; // an event stream: no deadline any more, but the caller's signal still cancels it

export class Attempt {
  private readonly ctrl = new AbortController();
  /** The signal its fetch is given. */
  readonly signal = this.ctrl.signal;
  /** The fetch's init when it needs nothing else, made once (fetch only reads it). */
  readonly init: RequestInit = { signal: this.signal };
  private state = IDLE;
  private deadline = 0;
  private ms = 0;
  /** For the TimeoutError's message (its URL is read only then: `Request.url` serializes the URL each time). */
  private request: Request | null = null;
  private outer: AbortSignal | null = null;
  /** The response it times, once the headers are in; hooks on that response end it through `endFor`. */
  private response: Response | null = null;
  private timer: unknown = undefined;
  /** When the timer fires; Infinity when none is armed. */
  private firesAt = Infinity;
  /** Set when the timer fired: what the attempt fails with. */
  private timeoutError: TimeoutError | null = null;

  constructor(private readonly pool: AttemptPool) {}

  private readonly fire = () => {
    this.timer = undefined;
    this.firesAt = Infinity;
    if (this.state !== TIMED) return; // idle, or an event stream: a leftover timer, nothing to do
    const now = this.pool.timers.now();
    if (this.deadline > now) return this.arm(now, this.deadline - now);
    this.unlink();
    // The reason is the TimeoutError itself, so a fetch that honours it (undici does) fails with it, and so does
    // a body being read.
    this.timeoutError = new TimeoutError(this.request!.method, urlPath(this.request!.url), this.ms);
    this.ctrl.abort(this.timeoutError);
  };

  private readonly onOuterAbort = () => {
    this.ctrl.abort(this.outer!.reason);
  };

  begin(request: Request, ms: number, now: number, outer: AbortSignal | null): void {
    this.state = TIMED;
    this.ms = ms;
    this.request = request;
    this.timeoutError = null;
    this.deadline = now + ms;
    // A timer left from the previous use that fires no later than the new deadline re-arms itself then.
    if (this.firesAt > this.deadline) {
      if (this.timer !== undefined) this.pool.timers.clearTimeout(this.timer);
      this.arm(now, ms);
    }
    if (outer) {
      this.outer = outer;
      if (outer.aborted) this.ctrl.abort(outer.reason);
      else outer.addEventListener("abort", this.onOuterAbort);
    }
  }

  private arm(now: number, ms: number): void {
    this.firesAt = now + ms;
    this.timer = this.pool.timers.setTimeout(this.fire, ms);
    // A timeout never keeps a process alive by itself: the I/O it watches does, while it is pending.
    (this.timer as { unref?: () => void } | null)?.unref?.();
  }

  private unlink(): void {
    if (this.outer) {
      this.outer.removeEventListener("abort", this.onOuterAbort);
      this.outer = null;
    }
  }

  /** Something arrived (headers, a chunk): the next thing has the timeout from now. */
  extend(): void {
    this.deadline = this.pool.timers.now() + this.ms;
  }

  /** An event stream opened: no more timeout, but the caller's signal still cancels it. Never reused. */
  untime(): void {
    this.state = UNTIMED;
  }

  /**
   * The attempt is over. `clean`: its fetch completed (no body, or the body read to its end) without an abort, so
   * the attempt can serve the next one; otherwise it is dropped.
   */
  end(clean: boolean): void {
    if (this.state === IDLE) return;
    this.state = IDLE;
    this.response = null;
    this.request = null;
    this.unlink();
    if (clean && !this.signal.aborted) this.pool.release(this);
  }

  /** `end`, from a hook on `response`: only while the attempt still times that response (it may be reused since). */
  endFor(response: Response, clean: boolean): void {
    if (this.response === response) this.end(clean);
  }

  /** The response whose body it now times. */
  times(response: Response): void {
    this.response = response;
    this.extend();
  }

  /** What to throw for a failure of the attempt: the TimeoutError if the timer fired, else the failure itself. */
  failure(e: unknown): unknown {
    return this.timeoutError ?? e;
  }
}

/*
 * A response's body under its attempt's timeout. Without it, a body that stalls after the headers is awaited
 * forever. After the headers, the deadline moves to the timeout from now, and:
 *  - a body read whole (what openapi-fetch does, unless `parseAs: "stream"`) must arrive by then. The response is
 *    only tagged with its attempt; the client's call method ends the attempt when openapi-fetch's call has read the
 *    body (`endAttemptOf`). If the body stalls, the timer aborts the fetch with the TimeoutError as the reason, and
 *    a fetch that follows the standard (undici, browsers) fails the body read with that reason;
 *  - a body read as a stream (`parseAs: "stream"`) is wrapped on first access of `response.body`, and each chunk
 *    must arrive within the timeout of the one before: long downloads that keep flowing never time out. For that,
 *    the response keeps its object but gets a prototype whose body readers watch the timeout (a new Response
 *    around a wrapping stream costs more than all the rest of a call); only for these responses, since swapping
 *    prototypes costs a third of the timeout's price (npm run bench).
 * Event streams read as a stream are exempt (quiet for long by design; streamAnalysisEvents has its own
 * reconnects), and so are responses without a body.
 */
const ATTEMPT = Symbol("attempt");
const STREAM = Symbol("body under timeout");
type Timed = Response & { [ATTEMPT]?: Attempt; [STREAM]?: ReadableStream<Uint8Array> | null };
const READERS = ["json", "text", "arrayBuffer", "blob", "formData", "bytes"] as const;
const EVENT_STREAM = /^\s*text\/event-stream/i;
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
          this[STREAM] = raw && chunksUnderTimeout(raw, this[ATTEMPT]!, this);
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
        const a = this[ATTEMPT]!;
        let result: unknown;
        try {
          result = await read.call(this);
        } catch (e) {
          a.endFor(this, false);
          throw a.failure(e);
        }
        a.endFor(this, true);
        return result;
      },
    });
  }
  timedPrototypes.set(base, proto);
  return proto;
}

/** `raw`, with each chunk awaited under the timeout (extended for the next chunk). */
function chunksUnderTimeout(raw: ReadableStream<Uint8Array>, a: Attempt, response: Response): ReadableStream<Uint8Array> {
  const reader = raw.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        a.endFor(response, false);
        throw a.failure(e);
      }
      if (chunk.done) {
        a.endFor(response, true);
        controller.close();
      } else {
        a.extend();
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      a.endFor(response, false);
      return reader.cancel(reason);
    },
  });
}

/**
 * Puts the body of `response` under the attempt's timeout (or ends the attempt when there is nothing to time).
 * `asStream`: the caller reads the body as a stream (or may: the transport cannot tell).
 */
export function underTimeout(response: Response, a: Attempt, asStream: boolean): Response {
  a.times(response);
  (response as Timed)[ATTEMPT] = a;
  // Read whole: openapi-fetch's call ends the attempt once it has read the body (or seen there is none).
  if (!asStream) return response;
  // No body (a 204, an answer to HEAD: fetch gives them a null body): the attempt is over.
  if (!response.body) {
    a.end(true);
    return response;
  }
  // An event stream read as a stream: not timed once open, but the caller's signal still cancels it. (One read
  // whole is not exempt: it never ends, and a timeout beats waiting forever.)
  if (EVENT_STREAM.test(response.headers.get("content-type") ?? "")) {
    a.untime();
    return response;
  }
  Object.setPrototypeOf(response, timedPrototype(Object.getPrototypeOf(response) as object));
  return response;
}

/**
 * Ends the attempt of a call's response once openapi-fetch has read its body (every `parseAs` but "stream"), so
 * its controller and timer serve the next attempt. Passed to `.then` of the call: returns the result unchanged.
 */
export function endAttemptOf<R extends { response: Response }>(result: R): R {
  const r = result.response as Timed;
  r[ATTEMPT]?.endFor(r, true);
  return result;
}

/** Ends the attempt of a response that will not be handed out (the transport retries): never reused. */
export function dropAttemptOf(response: Response): void {
  (response as Timed)[ATTEMPT]?.endFor(response, false);
}
