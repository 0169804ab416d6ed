// The simulated clock (decision MC2, issue 43): the one clock of a gateway or simulation (clock.ts), which a
// frontend team can pause, resume and step from outside (`POST /__mock/clock`), so a progress bar can be held at
// 40% for a screenshot, and a minute's rate limit, a token's expiry or a lifecycle's time-out can be reached at
// once. It is a Clock laid over a base Clock (the system's in `npm start`; in tests, another SimulatedClock held
// paused, which then runs its tasks only when the test advances it), so whatever clock it is given keeps working
// beneath it.
//
// Simulated time = base time + `offset` while running; frozen at `frozenAt` while paused. Advancing adds to the
// offset and runs, in order of time, every task that falls due, with the clock reading the task's own time while
// it runs. Only one base timer is armed at a time, for the earliest task.
import type { Cancel, Clock } from "./clock.js";

interface Task {
  at: number;
  seq: number;
  run: () => void;
}

export interface ClockState {
  /** Simulated time, ISO 8601. */
  now: string;
  paused: boolean;
  /** How far simulated time is ahead of the base clock, ms (it falls behind while paused). */
  offset_ms: number;
  /** Tasks waiting: lifecycle steps, time-outs, expiries. */
  pending: number;
  /** When the next one falls due, ISO 8601; null when none waits. */
  next_at: string | null;
}

/** What replicas share of the clock (decision SB12): simulated time = base + `offset`, or `frozenAt` while paused. */
export interface SharedClock {
  offset: number;
  frozenAt: number | null;
}

/**
 * The clock shared by a sandbox's replicas (clock-redis.ts): a change made through one (`/__mock/clock`, a reset) is
 * published, and every replica adopts it. Absent in one process.
 */
export interface ClockShare {
  /** Makes `state` every replica's; resolves once it is stored (the control answers then). */
  publish(state: SharedClock): Promise<void>;
  /** Adopts the shared state now, if it changed (a control's read: the latest, whichever replica set it). */
  refresh(): Promise<void>;
}

export class SimulatedClock implements Clock {
  private offset = 0;
  private frozenAt: number | null = null;
  /** While a task runs during `advance`, the clock reads the task's time. */
  private running: number | null = null;
  /** Waiting tasks, kept sorted by (at, seq). */
  private tasks: Task[] = [];
  private seq = 0;
  private armed: { at: number; cancel: Cancel } | null = null;

  /**
   * `base`: the clock beneath (real time and timers, or a test's). `frozenAt`: start paused at that time (a test's
   * clock, which moves only when the test advances or sets it).
   */
  constructor(
    readonly base: Clock,
    o: { frozenAt?: number } = {},
  ) {
    if (o.frozenAt !== undefined) this.frozenAt = o.frozenAt;
  }

  now(): number {
    return this.running ?? this.frozenAt ?? this.base.now() + this.offset;
  }

  get paused(): boolean {
    return this.frozenAt !== null;
  }

  state(): ClockState {
    const next = this.tasks[0];
    return { now: new Date(this.now()).toISOString(), paused: this.paused, offset_ms: this.now() - this.base.now(), pending: this.tasks.length, next_at: next ? new Date(next.at).toISOString() : null };
  }

  /** Simulated time stops: nothing scheduled runs until `resume` or `advance`. */
  pause(): void {
    if (this.frozenAt !== null) return;
    this.frozenAt = this.now();
    this.disarm();
  }

  /** Simulated time runs on from where it stood (so it stays behind the base clock by the time it was paused). */
  resume(): void {
    if (this.frozenAt === null) return;
    this.offset = this.frozenAt - this.base.now();
    this.frozenAt = null;
    this.arm();
  }

  /** Back to the base clock's time, running (`POST /__mock/reset`); the tasks left wait for their times as they were. */
  reset(): void {
    this.offset = 0;
    this.frozenAt = null;
    this.arm();
  }

  /** The state to share with other replicas after a change made here. */
  shared(): SharedClock {
    return { offset: this.offset, frozenAt: this.frozenAt };
  }

  /**
   * Takes the state another replica published: time moves to what it says (running, in order, every task due by
   * then, as `advance` does), paused or running as it is there. Time never runs backwards for tasks: going back
   * (a reset) only changes what the clock reads.
   */
  adopt(st: SharedClock): void {
    const target = st.frozenAt ?? this.base.now() + st.offset;
    if (target > this.now()) this.advance(target - this.now());
    this.frozenAt = st.frozenAt;
    this.offset = st.offset;
    this.arm();
  }

  /**
   * Moves the clock to `at`, as a test jumps to a time: forward as `advance` does (what falls due runs), or back,
   * where nothing runs and the tasks keep their times. Paused or not, it stays so.
   */
  set(at: number): void {
    const now = this.now();
    if (at >= now) return this.advance(at - now);
    if (this.frozenAt !== null) this.frozenAt = at;
    else this.offset = at - this.base.now();
    this.arm();
  }

  /** Moves simulated time `ms` forward, running every task due by then; paused or not, it stays so. */
  advance(ms: number): void {
    const until = this.now() + ms;
    this.disarm();
    for (let next = this.tasks[0]; next && next.at <= until; next = this.tasks[0]) {
      this.tasks.shift();
      this.running = Math.max(next.at, this.running ?? -Infinity);
      try {
        next.run();
      } finally {
        this.running = null;
      }
    }
    if (this.frozenAt !== null) this.frozenAt = until;
    else this.offset = until - this.base.now();
    this.arm();
  }

  /**
   * A task due at `at` that ran late (a lifecycle step that waited for its workspace's lock on a replica, SB24): the
   * clock reads `at` while it runs, so what it schedules is due from `at`, and then every task due by now runs, as
   * `advance` would have run them. Without this a step run after an advance of a paused clock scheduled the next one
   * from the advanced time, and nothing moved until the clock was resumed.
   */
  runAs(at: number, task: () => void): void {
    if (this.running !== null || at >= this.now()) return task();
    this.running = at;
    try {
      task();
    } finally {
      this.running = null;
    }
    this.advance(0);
  }

  after(ms: number, run: () => void): Cancel {
    const task: Task = { at: this.now() + Math.max(0, ms), seq: this.seq++, run };
    this.tasks.splice(this.indexAfter(task.at), 0, task);
    if (this.running === null && (!this.armed || task.at < this.armed.at)) this.arm();
    return () => {
      const i = this.tasks.indexOf(task);
      if (i >= 0) this.tasks.splice(i, 1);
    };
  }

  /** Where a task due at `at` goes: after every task due at or before it (binary search). */
  private indexAfter(at: number): number {
    let lo = 0;
    let hi = this.tasks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.tasks[mid]!.at <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** One base timer, for the earliest task, unless paused. */
  private arm(): void {
    this.disarm();
    const first = this.tasks[0];
    if (!first || this.frozenAt !== null) return;
    this.armed = { at: first.at, cancel: this.base.after(first.at - this.now(), () => this.fire(first.at)) };
  }

  private disarm(): void {
    this.armed?.cancel();
    this.armed = null;
  }

  /**
   * The base timer of the task due `at` went off: that task's time has come, whatever the base clock says (a test's
   * clock that stands still under real timers), so simulated time is at least `at`; every task due then runs.
   */
  private fire(at: number): void {
    this.armed = null;
    if (this.frozenAt !== null) return;
    const now = this.now();
    if (at > now) this.offset += at - now;
    this.advance(0);
  }
}
