// The Redis event fan-out itself (events-redis.ts, decision SB10), two "replicas" in one process on a real
// redis-server, each with its own copy of one analysis's log: the first to publish owns the stream; the other's
// copy is refused while the owner's lease runs, then takes over and adds what the stream lacks, so a reader sees
// every event once, in order, whichever copy it came from; a stream lost with Redis is published again when asked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis as RedisClient } from "ioredis";
import { RedisEventFeeds, OWNER_LEASE_MS } from "../../../../src/mock/engines/redis/events-redis.js";
import { connectRedis, redisReady } from "../../../../src/mock/engines/redis/redis.js";
import { EventLog, type StreamEvent } from "../../../../src/mock/core/store/log.js";
import { missing, startRedis, type Engine } from "../../../../scripts/lib/engines.js";

const skip = missing("redis");
const WS = "ws_Streams0001";

/** Follows `log` through `feeds` after `last`; `done` settles with every event once the log's end arrives. */
function read(feeds: RedisEventFeeds, log: EventLog, last: string | null) {
  const got: StreamEvent[] = [];
  const done = new Promise<StreamEvent[]>((resolve) => feeds.follow(WS, log, last, (e) => got.push(e), () => resolve(got)));
  return { got, done };
}

describe.skipIf(skip !== null)(skip ?? "the event fan-out on Redis", () => {
  let redis: Engine;
  const clients: RedisClient[] = [];
  const feeds: RedisEventFeeds[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const c = connectRedis(redis.url);
      await redisReady(c, redis.url);
      clients.push(c);
      feeds.push(new RedisEventFeeds(c));
    }
  }, 30_000);

  afterAll(async () => {
    for (const f of feeds) f.close();
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  it("one copy owns the stream; the other takes over after the lease and adds only what is missing", async () => {
    const [one, two] = feeds as [RedisEventFeeds, RedisEventFeeds];
    const mine = new EventLog("anl_01STREAMSTAKEOVER0000000001", one.tapFor(WS));
    const theirs = new EventLog("anl_01STREAMSTAKEOVER0000000001", two.tapFor(WS));
    const reader = read(two, theirs, null);
    for (const n of [1, 2, 3]) mine.append("status", { from: "one", n });
    await new Promise((r) => setTimeout(r, 200));
    for (const n of [1, 2, 3, 4, 5]) theirs.append("status", { from: "two", n });
    theirs.finish();
    await new Promise((r) => setTimeout(r, 300));
    // The owner's three; the other copy waits for the lease to lapse.
    expect(reader.got.map((e) => e.data)).toEqual([1, 2, 3].map((n) => ({ from: "one", n })));
    const all = await reader.done;
    expect(all.map((e) => e.id)).toEqual(theirs.events.map((e) => e.id));
    expect(all.map((e) => e.data.from)).toEqual(["one", "one", "one", "two", "two"]);
    // A reader resuming after the third event, on the first copy's side, gets the last two and the end.
    expect((await read(one, mine, all[2]!.id).done).map((e) => e.id)).toEqual(all.slice(3).map((e) => e.id));
    expect(await one.hasSeenAll(WS, mine, all.at(-1)!.id)).toBe(true);
    expect(await one.hasSeenAll(WS, mine, all[3]!.id)).toBe(false);
  }, OWNER_LEASE_MS * 3);

  it("a stream Redis lost is published again, whole, when a client asks for it", async () => {
    const [one] = feeds as [RedisEventFeeds];
    const log = new EventLog("anl_01STREAMSLOST00000000000001", one.tapFor(WS));
    for (const n of [1, 2]) log.append("status", { n });
    log.finish();
    await new Promise((r) => setTimeout(r, 200));
    await clients[0]!.flushall();
    expect((await read(one, log, null).done).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  }, 20_000);
});
