// Rate limits across replicas (decisions SB1, SB2): with `--redis`, a key's limit holds over every replica in total;
// the Redis limiter decides exactly as the in-process one; a replica that loses Redis answers 503 with Retry-After
// and /health says so, and it recovers by itself when Redis is back. Real redis-server, real gateway processes.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter, type Decision, type Subject } from "../../../../src/mock/core/access/limiter.js";
import { RedisRateLimiter } from "../../../../src/mock/engines/redis/limiter-redis.js";
import { connectRedis } from "../../../../src/mock/engines/redis/redis.js";
import { ManualClock, policy } from "../../../helpers/mock.js";
import { freePort, missing, startRedis, type Engine } from "../../../../scripts/lib/engines.js";
import { keysFile, startReplica, type Replica } from "../../../../scripts/lib/replicas.js";

const skip = missing("redis");
const category = (name: string) => policy.categories.find((c) => c.name === name)!;

describe.skipIf(skip !== null)(skip ?? "rate limits across replicas on Redis", () => {
  let redis: Engine;
  let replicas: Replica[] = [];
  const limited = { key: "pk_test_sandbox_limited_60", workspace_id: "ws_Sandbox0001", plan: "pro", rate_limit_rpm: 60 };
  const burst = { key: "pk_test_sandbox_burst_20", workspace_id: "ws_Sandbox0002", plan: "pro", rate_limit_rpm: 20 };

  beforeAll(async () => {
    redis = await startRedis();
    const keys = keysFile([limited, burst]);
    // One first: it makes the bundle (run-bundled.mjs) the two others then reuse.
    replicas.push(await startReplica(["--redis", redis.url, "--keys", keys]));
    replicas.push(...(await Promise.all([1, 2].map(() => startReplica(["--redis", redis.url, "--keys", keys])))));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await redis?.stop();
  });

  /** Waits until at least `seconds` are left in the current minute window, so a burst stays inside one window. */
  async function inOneWindow(seconds: number) {
    const left = 60 - (new Date().getUTCSeconds() + new Date().getUTCMilliseconds() / 1000);
    if (left < seconds) await new Promise((r) => setTimeout(r, (left + 0.2) * 1000));
  }

  it("a key limited to 60 a minute gets 60 in total when its requests go round-robin over 3 replicas", async () => {
    await inOneWindow(20);
    const statuses: number[] = [];
    let lastAllowed: Headers | null = null;
    for (let i = 0; i < 90; i++) {
      const res = await fetch(`${replicas[i % 3]!.url}/v1/analyses?limit=1`, { headers: { "X-API-Key": limited.key } });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 200) lastAllowed = res.headers;
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(lastAllowed!.get(policy.headers.limit)).toBe("60");
    expect(lastAllowed!.get(policy.headers.remaining)).toBe("0");
  }, 60_000);

  it("50 concurrent requests over the replicas against a limit of 20: exactly 20 pass", async () => {
    await inOneWindow(20);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${replicas[i % 3]!.url}/v1/analyses?limit=1`, { headers: { "X-API-Key": burst.key } }).then(async (r) => (await r.arrayBuffer(), r.status)),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  }, 60_000);

  it("a replica that loses Redis answers 503 dependency_unavailable with Retry-After, /health says so, and it recovers by itself", async () => {
    const r = replicas[0]!;
    await redis.pause();
    try {
      const res = await fetch(`${r.url}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
      const body = await res.json();
      expect(res.status).toBe(503);
      expect(body).toMatchObject({ error: "dependency_unavailable" });
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
      const health = await fetch(`${r.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: "down", dependencies: { redis: "down" } });
      // What needs no Redis still answers: the contract, unauthenticated.
      expect((await fetch(`${r.url}/openapi.yaml`)).status).toBe(200);
    } finally {
      await redis.restart();
    }
    let health: Response | null = null;
    for (let i = 0; i < 100 && health?.status !== 200; i++) {
      health = await fetch(`${r.url}/health`);
      if (health.status !== 200) await new Promise((res) => setTimeout(res, 100));
    }
    expect(await health!.json()).toMatchObject({ status: "ok", dependencies: { redis: "ok" } });
    const again = await fetch(`${r.url}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
    expect(again.status).toBe(200);
  }, 60_000);

  it("a replica whose Redis does not answer at start stops with a message naming it (no password shown)", async () => {
    const port = await freePort();
    const started = startReplica(["--redis", `redis://:hunter2@127.0.0.1:${port}/0`]);
    const error = await started.then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toMatch(new RegExp(`Cannot start: Redis at redis://127\\.0\\.0\\.1:${port}/0 did not answer within 10 s`));
    expect(error).not.toContain("hunter2");
  }, 60_000);

  it("decides exactly as the in-process limiter, request by request (property test)", async () => {
    const client = connectRedis(redis.url);
    await new Promise<void>((resolve) => (client.status === "ready" ? resolve() : client.once("ready", () => resolve())));
    let run = 0;
    let refusals = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              who: fc.constantFrom<Subject>(
                { bucket: "ws_a", plan: "free" },
                { bucket: "ws_a", plan: "free", key: { bucket: "key:a1", rpm: 7 } },
                { bucket: "ws_b", plan: "starter", key: { bucket: "key:b1", rpm: 40 } },
              ),
              cat: fc.constantFrom("general", "upload", "query"),
              peek: fc.boolean(),
              // Runs of up to 20 alike, so the minute buckets (15-60 here) and the keys' own fill up and refuse.
              times: fc.integer({ min: 1, max: 20 }),
              advance: fc.constantFrom(0, 0, 0, 1_000, 30_000, 3_600_000),
            }),
            { minLength: 1, maxLength: 40 },
          ),
          async (steps) => {
            const clock = new ManualClock(Date.UTC(2026, 10, 21, 23, 59, 10));
            const local = new RateLimiter(policy, clock);
            const shared = new RedisRateLimiter(policy, client, clock, `avt:prop${run++}:`);
            for (const s of steps) {
              clock.advance(s.advance);
              for (let i = 0; i < s.times; i++) {
                const a: Decision = s.peek ? local.peek(s.who, category(s.cat)) : local.take(s.who, category(s.cat));
                const b: Decision = await (s.peek ? shared.peek(s.who, category(s.cat)) : shared.take(s.who, category(s.cat)));
                expect(b).toEqual(a);
                if (!a.allowed) refusals++;
              }
            }
          },
        ),
        { numRuns: 25 },
      );
      expect(refusals).toBeGreaterThan(0); // the runs reached the limits, not only the allowed side
    } finally {
      client.disconnect();
    }
  }, 120_000);
});
