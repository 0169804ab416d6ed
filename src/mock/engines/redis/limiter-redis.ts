// The rate limiter of a sandbox run as replicas (`--redis URL`, decisions SB1-SB3): the same buckets and answers as
// limiter.ts, with the counts kept in Redis so a key's limit holds across every replica (N a minute in total, not
// per replica).
//
// One Lua script per request rather than rate-limiter-flexible: our buckets are all-or-nothing (a request must fit
// its workspace's minute bucket, its key's own and its workspace's day, and a refused request counts in none of them,
// decision G6). rate-limiter-flexible consumes one limiter at a time (its RateLimiterUnion consumes every limiter and
// keeps the points of those that passed), so a refusal by the third bucket would still count in the first two. A
// script runs atomically in Redis: read the three counts, decide, count in all or none.
//
// Window keys carry their window's start, so a new minute is a new key and the old ones expire by themselves.
// Redis unreachable: commands fail at once (no offline queue), and the stage answers 503 `dependency_unavailable`
// with Retry-After; ioredis reconnects by itself, and the next request after that is counted again.
import type { Redis as RedisClient } from "ioredis";
import type { TimeSource } from "../../core/clock/clock.js";
import { DependencyUnavailable } from "../../core/state/shared-state.js";
import type { CategoryRule, RateLimitPolicy } from "../../../contract/policy.js";
import { DAY_MS, RateLimiter, limitsOf, minuteBucket, verdict, type Decision, type Limiter, type Subject } from "../../core/access/limiter.js";

const SCRIPT = `
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local k = 0
if ARGV[2] ~= '0' then k = tonumber(redis.call('GET', KEYS[2]) or '0') end
local d = tonumber(redis.call('GET', KEYS[3]) or '0')
local ex = 0
if d >= tonumber(ARGV[3]) then ex = 2
elseif m >= tonumber(ARGV[1]) or (ARGV[2] ~= '0' and k >= tonumber(ARGV[2])) then ex = 1 end
if ex == 0 and ARGV[4] == '1' then
  m = redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  if ARGV[2] ~= '0' then
    k = redis.call('INCR', KEYS[2])
    redis.call('PEXPIRE', KEYS[2], ARGV[5])
  end
  d = redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end
local v = tonumber(redis.call('HGET', KEYS[4], 'v') or '0')
return {m, k, d, ex, v}
`;

/** Extra life of a window's key past its end, so a replica whose clock is a little behind still finds it. */
const SLACK_MS = 60_000;

type Counts = [number, number, number, number, number];
interface Scripted {
  avtRateTake(k1: string, k2: string, k3: string, k4: string, ...argv: (string | number)[]): Promise<Counts>;
}

/** The hash of the shared simulated clock (clock-redis.ts): its version comes back with every count. */
export const CLOCK_KEY = "avt:clock";

export class RedisRateLimiter implements Limiter {
  private readonly windowMs: number;
  /** Counts of the answers node:http's refusals write synchronously (`takeHere`): this replica's alone. */
  private readonly here: RateLimiter;

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly redis: RedisClient,
    private readonly clock: TimeSource,
    private readonly prefix = "avt:rl:",
    /**
     * Told the shared clock's version each count reads (decision SB12): a newer one is adopted before the request
     * goes on, so a clock changed through another replica holds for the very next request here.
     */
    private readonly clockVersion?: (v: number) => Promise<void> | undefined,
  ) {
    this.here = new RateLimiter(policy, clock);
    this.windowMs = policy.minute_window_seconds * 1000;
    redis.defineCommand("avtRateTake", { numberOfKeys: 4, lua: SCRIPT });
  }

  take(subject: Subject, category: CategoryRule): Promise<Decision> {
    return this.decide(subject, category, true);
  }

  peek(subject: Subject, category: CategoryRule): Promise<Decision> {
    return this.decide(subject, category, false);
  }

  takeHere(subject: Subject, category: CategoryRule): Decision {
    return this.here.take(subject, category);
  }

  prune(): void {
    this.here.prune(); // Redis expires its own keys
  }

  private async decide(subject: Subject, category: CategoryRule, count: boolean): Promise<Decision> {
    const now = this.clock.now();
    const limits = limitsOf(this.policy, subject, category);
    const minuteStart = now - (now % this.windowMs);
    const dayStart = now - (now % DAY_MS);
    const p = this.prefix;
    let counts: Counts;
    try {
      counts = await (this.redis as unknown as Scripted).avtRateTake(
        `${p}m:${minuteStart}:${minuteBucket(subject, category)}`,
        subject.key ? `${p}m:${minuteStart}:${subject.key.bucket}` : `${p}none`,
        `${p}d:${dayStart}:${subject.bucket}`,
        CLOCK_KEY,
        limits.minute,
        limits.key,
        limits.day,
        count ? "1" : "0",
        minuteStart + this.windowMs - now + SLACK_MS,
        dayStart + DAY_MS - now + SLACK_MS,
      );
      await this.clockVersion?.(counts[4]);
    } catch (e) {
      throw e instanceof DependencyUnavailable ? e : new DependencyUnavailable("redis", e);
    }
    const [minute, key, day, ex] = counts;
    // The script's verdict on the counts before this request: the Lua twin of `exceededBy` (test/sandbox compares them).
    const exceeded = ex === 2 ? "daily" : ex === 1 ? "minute" : null;
    return verdict(limits, exceeded, { minute, key, day }, now, this.windowMs);
  }
}

/** `ok` once the connection is up and ready, else `down` (what /health reports, decision SB2). */
export function redisHealth(client: RedisClient): "ok" | "down" {
  return client.status === "ready" ? "ok" : "down";
}
