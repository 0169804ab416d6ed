// Per-workspace rate limiting exactly as `x-rate-limit-policy` states it (read through src/contract/policy.ts):
// fixed minute windows per (workspace, category) with the category multipliers, a UTC-day window per workspace,
// and for a key with `rate_limit_rpm` a minute window of that key's own, shared by all its categories (decision
// G6). A request must pass every bucket it belongs to and is then counted in all of them; the minute headers
// report the bucket with the fewest requests left. `take()` checks and counts in one synchronous step, so
// concurrent requests in this single-threaded process can never overshoot: N parallel requests against limit L
// give exactly L successes.
// Not a MockState (state.ts): `POST /__mock/reset` leaves the counts, as the real edge would not forget them, and
// the state file does not keep them (decisions W16, W17).
import { systemClock, type TimeSource } from "../clock/clock.js";
import { dailyLimit, minuteLimit, type CategoryRule, type PlanName, type RateLimitPolicy } from "../../../contract/policy.js";

/** Whose buckets a request is counted in. */
export interface Subject {
  /** Bucket owner: the workspace id (or, for unauthenticated requests, an anonymous client id). */
  bucket: string;
  plan: PlanName;
  /** The key's own per-minute limit (`rate_limit_rpm`) and the name of its bucket; none for most keys and tokens. */
  key?: { bucket: string; rpm: number } | null;
}

export interface Decision {
  allowed: boolean;
  /** Which limit refused the request. */
  exceeded: "minute" | "daily" | null;
  limit: number;
  remaining: number;
  /** Requests counted in that minute bucket (this one included when it was taken). */
  used: number;
  /** UTC epoch seconds when the minute window resets. */
  reset: number;
  dailyLimit: number;
  dailyRemaining: number;
  /** Requests counted today in the workspace. */
  dailyUsed: number;
  /** Seconds until the exceeded window resets (429 only). */
  retryAfter: number;
}

/**
 * What the stages count requests with: this process's RateLimiter, or the Redis one the replicas of a sandbox share
 * (limiter-redis.ts). `take` and `peek` may answer a promise; `takeHere` never does.
 */
export interface Limiter {
  take(subject: Subject, category: CategoryRule): Decision | Promise<Decision>;
  peek(subject: Subject, category: CategoryRule): Decision | Promise<Decision>;
  /**
   * Counts in this process alone, synchronously: for the answers to requests node:http refuses itself, written to
   * the socket before anything could be awaited (http/server.ts). With replicas, each counts those on its own.
   */
  takeHere(subject: Subject, category: CategoryRule): Decision;
  /** Drops windows that have ended (called now and then). */
  prune(): void;
}

interface Window {
  start: number; // window start, epoch ms
  count: number;
}

export const DAY_MS = 86_400_000;

export class RateLimiter implements Limiter {
  /**
   * Minute windows: per workspace (or anonymous client), then per category name; and per limited key (`key:` bucket
   * names). Two maps deep rather than one keyed by `minuteBucket`: that name is a new string on every request, which
   * a lookup must flatten and hash, and this runs on every request.
   */
  private minute = new Map<string, Map<string, Window>>();
  private keyMinute = new Map<string, Window>();
  private daily = new Map<string, Window>();
  private readonly windowMs: number;

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly clock: TimeSource = systemClock,
  ) {
    if (policy.minute_bucket !== "per_workspace_and_category" || policy.daily_bucket !== "per_workspace" || policy.daily_window !== "utc_day") {
      throw new Error(
        `x-rate-limit-policy: this gateway implements minute_bucket per_workspace_and_category, daily_bucket per_workspace and daily_window utc_day`,
      );
    }
    this.windowMs = policy.minute_window_seconds * 1000;
  }

  /**
   * Counts one request of `subject` in `category` and tells whether it may pass. A refused request counts in no
   * bucket. When both limits are exhausted the daily one is reported, since waiting for the minute would not help.
   */
  take(subject: Subject, category: CategoryRule): Decision {
    return this.decide(subject, category, true);
  }

  takeHere(subject: Subject, category: CategoryRule): Decision {
    return this.decide(subject, category, true);
  }

  /** The state `take` would report, without counting anything. */
  peek(subject: Subject, category: CategoryRule): Decision {
    return this.decide(subject, category, false);
  }

  private decide(subject: Subject, category: CategoryRule, count: boolean): Decision {
    const now = this.clock.now();
    const limits = limitsOf(this.policy, subject, category);
    const wsMinute = current(this.categories(subject.bucket, count), category.name, now, this.windowMs, count);
    const keyMinute = subject.key ? current(this.keyMinute, subject.key.bucket, now, this.windowMs, count) : null;
    const day = current(this.daily, subject.bucket, now, DAY_MS, count);
    const exceeded = exceededBy(limits, wsMinute.count, keyMinute?.count ?? 0, day.count);
    if (!exceeded && count) {
      wsMinute.count++;
      if (keyMinute) keyMinute.count++;
      day.count++;
    }
    return verdict(limits, exceeded, { minute: wsMinute.count, key: keyMinute?.count ?? 0, day: day.count }, now, this.windowMs);
  }

  /** The minute windows of one bucket by category name; a map not kept when nothing is counted (`peek`). */
  private categories(bucket: string, create: boolean): Map<string, Window> {
    let m = this.minute.get(bucket);
    if (!m) {
      m = new Map();
      if (create) this.minute.set(bucket, m);
    }
    return m;
  }

  /** Drops windows that have ended (called now and then, so anonymous buckets do not pile up). */
  prune(): void {
    const now = this.clock.now();
    for (const [bucket, m] of this.minute) {
      dropEnded(m, now, this.windowMs);
      if (!m.size) this.minute.delete(bucket);
    }
    dropEnded(this.keyMinute, now, this.windowMs);
    dropEnded(this.daily, now, DAY_MS);
  }

  /** Buckets kept: the minute windows of each workspace or client, of each limited key, and the daily ones. */
  get size(): number {
    return this.minute.size + this.keyMinute.size + this.daily.size;
  }
}

/** The limits a request of `subject` in `category` must fit: its workspace's minute and day, and its key's own. */
export interface Limits {
  minute: number;
  day: number;
  /** The key's own per-minute limit, or 0 when it has none. */
  key: number;
}

export function limitsOf(policy: RateLimitPolicy, subject: Subject, category: CategoryRule): Limits {
  return { minute: minuteLimit(policy, subject.plan, category), day: dailyLimit(policy, subject.plan), key: subject.key ? subject.key.rpm : 0 };
}

/** The name of a workspace's minute bucket of one category. */
export function minuteBucket(subject: Subject, category: CategoryRule): string {
  return `${subject.bucket}\u0000${category.name}`;
}

/** Which limit the counts so far leave no room in; the daily one first, since waiting for the minute would not help. */
export function exceededBy(l: Limits, minute: number, key: number, day: number): Decision["exceeded"] {
  if (day >= l.day) return "daily";
  if (minute >= l.minute || (l.key > 0 && key >= l.key)) return "minute";
  return null;
}

/**
 * The decision from the counts after the request (it counted in them when it was allowed and counted): shared by
 * this limiter and the Redis one (limiter-redis.ts), so both answer alike. Minute windows are aligned to the clock
 * minute, so the workspace's and the key's start (and reset) together.
 */
export function verdict(l: Limits, exceeded: Decision["exceeded"], counts: { minute: number; key: number; day: number }, now: number, windowMs: number): Decision {
  const minuteStart = now - (now % windowMs);
  const dayStart = now - (now % DAY_MS);
  // The minute bucket reported: the one with fewer requests left (on a tie, the smaller limit).
  let limit = l.minute;
  let used = counts.minute;
  if (l.key > 0) {
    const keyLeft = l.key - counts.key;
    if (keyLeft < l.minute - used || (keyLeft === l.minute - used && l.key < l.minute)) {
      limit = l.key;
      used = counts.key;
    }
  }
  return {
    allowed: exceeded === null,
    exceeded,
    limit,
    remaining: Math.max(0, limit - used),
    used,
    reset: Math.ceil((minuteStart + windowMs) / 1000),
    dailyLimit: l.day,
    dailyRemaining: Math.max(0, l.day - counts.day),
    dailyUsed: counts.day,
    retryAfter: exceeded === "daily" ? secondsUntil(dayStart + DAY_MS, now) : exceeded === "minute" ? secondsUntil(minuteStart + windowMs, now) : 0,
  };
}

// Module-level helpers rather than closures made per request: under tsx (`npm start`) every function expression
// also costs an Object.defineProperty for its name, on the hot path of each request.
function secondsUntil(end: number, now: number): number {
  return Math.max(1, Math.ceil((end - now) / 1000));
}

function dropEnded(map: Map<string, Window>, now: number, span: number): void {
  for (const [k, w] of map) if (w.start + span <= now) map.delete(k);
}

/** The window of `key` that contains `now` (fixed windows aligned to the epoch, so UTC days and whole minutes). */
function current(map: Map<string, Window>, key: string, now: number, span: number, create: boolean): Window {
  const start = now - (now % span);
  let w = map.get(key);
  if (!w || w.start !== start) {
    w = { start, count: 0 };
    if (create) map.set(key, w);
  }
  return w;
}
