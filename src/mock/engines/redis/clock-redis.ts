// The simulated clock shared by a sandbox's replicas (`--redis URL`, decision SB12): pause, resume, advance and reset
// made through one replica (`/__mock/clock`, `/__mock/reset`) hold on all.
//
// The state is one Redis hash (`avt:clock`: offset, frozenAt, and a version bumped by each change) and a pub/sub
// channel telling every replica of a new version, which it then reads and adopts (core/clock/simulated.ts `adopt`: due
// tasks run, in order). Pub/sub alone could let a client's next request reach another replica before the message
// does, so the version also comes back with every rate-limit count (the same script, no extra round trip:
// limiter-redis.ts): a request that sees a newer version waits for the replica to adopt it. Controls read the hash
// themselves (`refresh`), as they are not counted.
import type { Redis as RedisClient } from "ioredis";
import type { ClockShare, SharedClock, SimulatedClock } from "../../core/clock/simulated.js";
import { CLOCK_KEY } from "./limiter-redis.js";
import { DependencyUnavailable } from "../../core/state/shared-state.js";

const PUBLISH = `
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'offset', ARGV[1], 'frozenAt', ARGV[2])
redis.call('PUBLISH', KEYS[1], v)
return v
`;

interface Scripted {
  avtClockPublish(key: string, offset: number, frozenAt: string): Promise<number>;
}

export class RedisClockShare implements ClockShare {
  /** The version this replica runs on. */
  private known = 0;
  private refreshing: Promise<void> | null = null;
  private readonly sub: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    private readonly time: SimulatedClock,
  ) {
    redis.defineCommand("avtClockPublish", { numberOfKeys: 1, lua: PUBLISH });
    this.sub = redis.duplicate({ enableOfflineQueue: true });
    this.sub.on("error", () => undefined);
    this.sub.on("message", () => void this.refresh().catch(() => undefined));
    // (Re)subscribed: whatever changed while this replica was not listening is read now.
    this.sub.on("ready", () => void this.refresh().catch(() => undefined));
    void this.sub.subscribe(CLOCK_KEY).catch(() => undefined);
  }

  async publish(state: SharedClock): Promise<void> {
    try {
      this.known = Number(await (this.redis as unknown as Scripted).avtClockPublish(CLOCK_KEY, state.offset, state.frozenAt === null ? "" : String(state.frozenAt)));
    } catch (e) {
      throw new DependencyUnavailable("redis", e);
    }
  }

  /** A request saw version `v` (with its rate-limit count): adopts it first when it is newer. */
  seen(v: number): Promise<void> | undefined {
    return v > this.known ? this.refresh() : undefined;
  }

  refresh(): Promise<void> {
    return (this.refreshing ??= this.read().finally(() => (this.refreshing = null)));
  }

  private async read(): Promise<void> {
    let h: Record<string, string>;
    try {
      h = await this.redis.hgetall(CLOCK_KEY);
    } catch (e) {
      throw new DependencyUnavailable("redis", e);
    }
    const v = Number(h.v ?? 0);
    if (v <= this.known) return;
    this.known = v;
    this.time.adopt({ offset: Number(h.offset ?? 0), frozenAt: h.frozenAt ? Number(h.frozenAt) : null });
  }

  close(): void {
    this.sub.disconnect();
  }
}
