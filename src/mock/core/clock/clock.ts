// The one clock of a gateway or simulation (issue 43): the time every part reads and the timers every part sets.
// There are two: the system clock, and the simulated clock laid over it (simulated.ts), which `POST /__mock/clock`
// pauses, resumes and advances. services.ts makes one SimulatedClock per gateway and hands that one object to every
// part: the rate limiter's windows, keys' and tokens' expiries, the store's lifecycles and time-outs, webhook
// deliveries. A part that only reads the time takes a TimeSource, the same clock seen through `now()`.
//
// What is not on it: durations measured with performance.now() (request latency in the log), and the transport's
// own deadlines (an idle socket, a stream with nothing to send), which are about the network, not the service.

import { unref } from "../util/sleep.js";

/** Cancels a scheduled task (nothing when it has run already). */
export type Cancel = () => void;

/** Milliseconds since the epoch: what a part that only reads the time is given. */
export interface TimeSource {
  now(): number;
}

export interface Clock extends TimeSource {
  /** Runs `task` after `ms` milliseconds of this clock's time. */
  after(ms: number, task: () => void): Cancel;
  /**
   * Runs `task`, due at `at`, late (after an asynchronous wait: a replica's lock), as if on time: the clock reads
   * `at` while it runs, and what it schedules that is due by now runs next (SimulatedClock). Absent: run as it is.
   */
  runAs?(at: number, task: () => void): void;
}

/** node's timers allow at most 2^31 - 1 ms; a longer wait is taken in hops. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Real time and real timers, unref'd: a pending task never keeps the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, task) {
    let timer: ReturnType<typeof setTimeout>;
    const arm = (left: number) => {
      timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : task()), Math.min(Math.max(0, left), MAX_TIMER_MS));
      unref(timer);
    };
    arm(ms);
    return () => clearTimeout(timer);
  },
};
