// The per-attempt timeout (decisions C4, L7, P2, P10): an abort signal for each attempt's fetch, aborted when the
// response headers do not arrive within the timeout, or the body after them (a body read whole within the timeout
// of its headers; a body read as a stream within the timeout of each previous chunk, see body-timeout.ts; an event
// stream read as a stream is not timed once open), or when the caller's signal aborts.
//
// On every request's path, so built around what costs (npm run bench): on Node 20 creating an AbortSignal costs
// a tenth of a whole openapi-fetch call, and arming a timer more than 1%. So each client keeps
//  - its attempts: one whose fetch is over without an abort (no body, or the body read to its end) serves the next
//    attempt with the same controller; one that aborted, or whose body may still be read, never does;
//  - one timer for all of them, armed for the earliest deadline and never cleared when an attempt ends: when it
//    fires it aborts the attempts past their deadline and re-arms for the next one, if any. Starting an attempt,
//    moving its deadline (headers in, a chunk in) and ending it only write numbers. Unref'd: the timer never keeps
//    a process alive;
//  - the caller's signal linked only when the caller passed one (the call methods tell, see client.ts).
import { TimeoutError, urlPath } from "./errors.js";
import type { Timers } from "./timers.js";

/** Idle attempts a client keeps for reuse: as many as it had in flight at once, up to this. */
const POOL_MAX = 32;
const ATTEMPT = Symbol("attempt");
type Tagged = Response & { [ATTEMPT]?: Attempt };

export interface Attempt {
  /** The fetch's init when it needs nothing else, made once (fetch only reads it): `{ signal }`. */
  readonly init: { signal: AbortSignal };
  readonly ctrl: AbortController;
  /** Aborts the attempt with the caller's signal's reason. */
  readonly follow: () => void;
  /** In flight while set; read for the TimeoutError's message only then (`Request.url` serializes the URL). */
  request: Request | null;
  /** The response whose body it times, once the headers are in. */
  response: Response | null;
  outer: AbortSignal | null;
  ms: number;
  /** When it times out; Infinity for an open event stream, which is not timed. */
  deadline: number;
  /** Set when it timed out: what the attempt fails with. */
  error: TimeoutError | null;
}

/** What the body timeout (body-timeout.ts) needs of an attempt's client. */
export interface BodyTimer {
  /** Ends the attempt if it still times `response` (it may serve another one since). */
  settle(a: Attempt, response: Response, clean: boolean): void;
  /** Moves an attempt's deadline to the timeout from now (a chunk came in). */
  extend(a: Attempt): void;
}

/** The timeouts of one client's attempts. */
export function createTimeouts(timers: Timers) {
  /** Every attempt the timer watches: in flight (`request` set) or idle, ready for reuse (in `idle` too). */
  const attempts: Attempt[] = [];
  const idle: Attempt[] = [];
  let timer: unknown;
  let firesAt = Infinity;

  function arm(at: number, now: number): void {
    if (timer !== undefined) timers.clearTimeout(timer);
    firesAt = at;
    timer = timers.setTimeout(fire, at - now);
    (timer as { unref?: () => void } | null)?.unref?.();
  }

  function fire(): void {
    timer = undefined;
    firesAt = Infinity;
    const now = timers.now();
    let next = Infinity;
    for (const a of [...attempts]) {
      if (!a.request) continue;
      if (a.deadline > now) next = Math.min(next, a.deadline);
      else {
        // The reason is the TimeoutError itself, so a fetch that honours it (undici, browsers) fails with it, and so
        // does a body being read.
        a.error = new TimeoutError(a.request.method, urlPath(a.request.url), a.ms);
        end(a, false);
        a.ctrl.abort(a.error);
      }
    }
    if (next < Infinity) arm(next, now);
  }

  /** Takes an attempt out of the timer's sight for good. */
  function forget(a: Attempt): void {
    const i = attempts.indexOf(a);
    if (i >= 0) attempts.splice(i, 1);
  }

  /**
   * The attempt ends; `clean`: its fetch completed without an abort, so it may serve the next attempt (unless it
   * was an event stream, out of the timer's sight).
   */
  function end(a: Attempt, clean: boolean): void {
    if (!a.request) return;
    a.outer?.removeEventListener("abort", a.follow);
    a.request = a.response = a.outer = null;
    if (clean && !a.init.signal.aborted && a.deadline < Infinity && idle.length < POOL_MAX) idle.push(a);
    else forget(a);
  }

  function newAttempt(): Attempt {
    const ctrl = new AbortController();
    const a: Attempt = {
      init: { signal: ctrl.signal },
      ctrl,
      follow: () => ctrl.abort(a.outer!.reason),
      request: null,
      response: null,
      outer: null,
      ms: 0,
      deadline: 0,
      error: null,
    };
    attempts.push(a);
    return a;
  }

  const body: BodyTimer = {
    settle: (a, response, clean) => a.response === response && end(a, clean),
    extend: (a) => void (a.deadline = timers.now() + a.ms),
  };

  return {
    body,
    end,

    /** An attempt of `request` timed out after `ms` from `now`; `outer` is the caller's signal, if any. */
    start(request: Request, ms: number, now: number, outer: AbortSignal | null): Attempt {
      const a = idle.pop() ?? newAttempt();
      a.request = request;
      a.ms = ms;
      a.error = null;
      a.deadline = now + ms;
      if (a.deadline < firesAt) arm(a.deadline, now);
      if (outer) {
        if (outer.aborted) a.ctrl.abort(outer.reason);
        else outer.addEventListener("abort", a.follow);
        a.outer = outer;
      }
      return a;
    },

    /**
     * The headers are in: the body has the timeout again from now. A body read whole (what openapi-fetch does
     * unless `parseAs: "stream"`) must arrive by then: the client's call method ends the attempt once openapi-fetch
     * has read it (`endOf`); a stalled one is aborted by the timer, and fetch fails the read with the TimeoutError.
     * Gives whether the body is to be watched as a stream (body-timeout.ts) when the caller reads it as one.
     */
    headersIn(response: Response, a: Attempt, asStream: boolean): boolean {
      a.response = response;
      body.extend(a);
      (response as Tagged)[ATTEMPT] = a;
      if (!asStream) return false;
      // No body (a 204, an answer to HEAD): the attempt is over.
      if (!response.body) end(a, true);
      // An event stream: quiet for long by design, so not timed once open (the caller's signal still cancels it).
      // One read whole is not exempt: it never ends, and a timeout beats waiting forever.
      else if (/^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "")) {
        a.deadline = Infinity;
        forget(a);
      } else return true;
      return false;
    },

    /**
     * Ends the attempt of a call's response once openapi-fetch has read its body (every `parseAs` but "stream"), so
     * its controller serves the next attempt. Passed to `.then` of the call: returns the result unchanged.
     */
    endOf<R extends { response: Response }>(result: R): R {
      const a = (result.response as Tagged)[ATTEMPT];
      if (a) body.settle(a, result.response, true);
      return result;
    },
  };
}

