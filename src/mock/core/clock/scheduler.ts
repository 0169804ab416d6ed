// When the store's resources move by themselves (a lifecycle's processing steps, its time-outs), they are put on
// a Scheduler: real timers in the gateway, a ManualScheduler in tests, which runs what is due when the test
// advances its clock, so no test sleeps.
import type { Clock } from "../access/limiter.js";
import { unref } from "../util/sleep.js";

/** Cancels a scheduled task (nothing when it has run already). */
export type Cancel = () => void;

export interface Scheduler {
  /** Runs `task` after `ms` milliseconds of the scheduler's clock. */
  after(ms: number, task: () => void): Cancel;
}

/** node's timers allow at most 2^31 - 1 ms; a longer wait is taken in hops. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Real timers, unref'd: a pending step never keeps the process alive. */
export const timerScheduler: Scheduler = {
  after(ms, task) {
    let timer: NodeJS.Timeout;
    const arm = (left: number) => {
      timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : task()), Math.min(Math.max(0, left), MAX_TIMER_MS));
      unref(timer);
    };
    arm(ms);
    return () => clearTimeout(timer);
  },
};

interface Task {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * A scheduler driven by hand, on a clock the test also gives the gateway: `advance(ms)` moves the clock forward,
 * running each task that falls due on the way, in order of time (then of scheduling), with the clock set to the
 * task's own time while it runs.
 */
export class ManualScheduler implements Scheduler {
  private tasks: Task[] = [];
  private seq = 0;

  constructor(readonly clock: Clock & { set(ms: number): void }) {}

  after(ms: number, run: () => void): Cancel {
    const task: Task = { at: this.clock.now() + Math.max(0, ms), seq: this.seq++, run };
    this.tasks.push(task);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }

  /** How many tasks are waiting. */
  get pending(): number {
    return this.tasks.length;
  }

  /** Moves the clock `ms` forward, running every task due by then. */
  advance(ms: number): void {
    const until = this.clock.now() + ms;
    for (;;) {
      const next = this.tasks.reduce<Task | undefined>((a, t) => (t.at <= until && (!a || t.at < a.at || (t.at === a.at && t.seq < a.seq)) ? t : a), undefined);
      if (!next) break;
      this.tasks = this.tasks.filter((t) => t !== next);
      if (next.at > this.clock.now()) this.clock.set(next.at);
      next.run();
    }
    this.clock.set(until);
  }
}
