// The limiter is exact under 200 concurrent requests, seen only through HTTP: beyond "exactly the limit succeed"
// (test/mock/core/access/ratelimit.test.ts), the X-RateLimit-Remaining values of the successes are each number from
// limit-1 down to 0 exactly once (no request counted twice, none lost), in every category at once and in the
// shared daily bucket, with an API key and a JWT of the same workspace mixed, and for anonymous clients; the
// daily limit cuts a concurrent burst at exactly what was left; and the minute window reopens exactly at
// X-RateLimit-Reset, with Retry-After counting down to it (a property over the second of the minute).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken, type RateLimiter } from "../../../../src/mock/index.js";
import { dailyLimit, minuteLimit } from "../../../../src/contract/policy.js";
import { systemClock } from "../../../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { ANALYSIS_ID, freshKey, policy, startGateway, T0, type TestGateway } from "../../../helpers/mock.js";
import { header, rawRequest, type RawRequest, type RawResponse } from "../../../helpers/robustness/http.js";
import { ContractOracle } from "../../../helpers/robustness/oracle.js";

const JWT_SECRET = "rate-limit-concurrency-secret-0001";
const cat = (name: string) => policy.categories.find((c) => c.name === name)!;
const free = "free";
const pro = "pro";

/** One request per category, from the contract's paths (the template decides the category, rule R5). */
const probes: Record<string, (key: string) => RawRequest> = {
  general: (k) => ({ method: "GET", path: "/v1/analyses", headers: [["X-API-Key", k]] }),
  query: (k) => ({ method: "GET", path: "/v1/reports", headers: [["X-API-Key", k]] }),
  streaming: (k) => ({ method: "GET", path: `/v1/analysis/${ANALYSIS_ID}/stream`, headers: [["X-API-Key", k]] }),
  upload: (k) => ({ method: "POST", path: "/v1/analysis/stream-upload?media_type=audio", headers: [["X-API-Key", k], ["Content-Type", "application/octet-stream"]], body: Buffer.from("RIFF....WAVE") }),
};

/** A workspace of its own per test, so no test's counting disturbs another's. */
const keys = {
  exact: freshKey(pro),
  categories: freshKey(free),
  mixed: freshKey(pro),
  daily: freshKey(free),
  reset: freshKey(pro),
  property: freshKey(pro, { rate_limit_rpm: 1 }),
};

let g: TestGateway;
let oracle: ContractOracle;
beforeAll(async () => {
  // Every timer by hand (a SimulatedClock held paused): the rate limiter reads the gateway's one clock, and a
  // seeded analysis's step firing on a real timer would move that clock past the millisecond a test sets.
  g = await startGateway({ jwtSecret: JWT_SECRET, extraKeys: Object.values(keys), clock: new SimulatedClock(systemClock, { frozenAt: T0 }) });
  oracle = new ContractOracle(g.gateway.contract);
  await g.gateway.ready;
});
afterAll(() => g.close());

/** Sends all requests at once, each on its own connection; checks every answer against the contract. */
async function burst(requests: RawRequest[]): Promise<RawResponse[]> {
  const base = new URL(g.url);
  const answers = await Promise.all(requests.map((r) => rawRequest(base, r)));
  answers.forEach((res, i) => expect(oracle.check(requests[i]!.method, requests[i]!.path, res), `${requests[i]!.path}`).toEqual([]));
  return answers;
}

const num = (r: RawResponse, name: string) => Number(header(r, name));
const h = policy.headers;
const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i); // from, from-1, ..., to
const sorted = (xs: number[]) => [...xs].sort((a, b) => b - a);

describe("rate limits under 200 concurrent requests", () => {
  it("count each success exactly once: Remaining takes every value from limit-1 to 0 once", async () => {
    g.clock.set(Date.UTC(2026, 10, 24, 9, 0, 10));
    const k = keys.exact;
    const limit = minuteLimit(policy, pro, cat("general"));
    const answers = await burst(Array.from({ length: 200 }, () => probes.general!(k.key)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(limit);
    expect(sorted(ok.map((r) => num(r, h.remaining)))).toEqual(range(limit - 1, 0));
    expect(sorted(ok.map((r) => num(r, h.daily_remaining)))).toEqual(range(dailyLimit(policy, pro) - 1, dailyLimit(policy, pro) - limit));
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(num(r, h.remaining)).toBe(0);
      expect(JSON.parse(r.body.toString())).toMatchObject({ error: "rate_limit_exceeded", limit });
    }
  });

  it("keep each category's minute bucket apart and share one daily bucket, all at once", async () => {
    g.clock.set(Date.UTC(2026, 10, 24, 9, 1, 10));
    const k = keys.categories;
    const names = Object.keys(probes);
    const requests = Array.from({ length: 200 }, (_, i) => names[i % names.length]!);
    const answers = await burst(requests.map((c) => probes[c]!(k.key)));
    let total = 0;
    for (const c of names) {
      const limit = minuteLimit(policy, free, cat(c));
      const mine = answers.filter((_, i) => requests[i] === c);
      const ok = mine.filter((r) => r.status < 300);
      expect(ok, c).toHaveLength(limit);
      expect(sorted(ok.map((r) => num(r, h.remaining))), c).toEqual(range(limit - 1, 0));
      expect(new Set(mine.map((r) => num(r, h.limit))), c).toEqual(new Set([limit]));
      total += limit;
    }
    const daily = dailyLimit(policy, free);
    expect(sorted(answers.filter((r) => r.status < 300).map((r) => num(r, h.daily_remaining)))).toEqual(range(daily - 1, daily - total));
  });

  it("share the workspace's buckets between its API key and its bearer JWT", async () => {
    g.clock.set(Date.UTC(2026, 10, 24, 9, 2, 10));
    const k = keys.mixed;
    const jwt = await mintToken({ secret: JWT_SECRET, workspaceId: k.workspace_id, expiresInSeconds: 3600, now: g.clock.now() });
    const requests = Array.from({ length: 200 }, (_, i): RawRequest => (i % 2 ? probes.general!(k.key) : { method: "GET", path: "/v1/analyses", headers: [["Authorization", `Bearer ${jwt}`]] }));
    const answers = await burst(requests);
    const limit = minuteLimit(policy, pro, cat("general"));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(limit);
    expect(sorted(ok.map((r) => num(r, h.remaining)))).toEqual(range(limit - 1, 0));
    expect(ok.filter((_, i) => i % 2).length).toBeGreaterThan(0);
  });

  it("cut a burst at exactly what is left of the daily limit, all refusals daily_limit_exceeded", async () => {
    // Spend all but 10 of the free plan's daily requests first, minute by minute, through the gateway's limiter.
    const k = keys.daily;
    const daily = dailyLimit(policy, free);
    g.clock.set(Date.UTC(2026, 10, 24, 1, 0, 0));
    for (let spent = 0; spent < daily - 10; ) {
      if ((g.gateway.limiter as RateLimiter).take({ bucket: k.workspace_id, plan: free }, cat("general")).allowed) spent++;
      else g.clock.advance(60_000);
    }
    g.clock.advance(60_000);
    const names = Object.keys(probes);
    const answers = await burst(Array.from({ length: 200 }, (_, i) => probes[names[i % names.length]!]!(k.key)));
    const ok = answers.filter((r) => r.status < 300);
    expect(ok).toHaveLength(10);
    expect(sorted(ok.map((r) => num(r, h.daily_remaining)))).toEqual(range(9, 0));
    const refusals = answers.filter((r) => r.status === 429).map((r) => JSON.parse(r.body.toString()));
    expect(refusals).toHaveLength(190);
    expect(new Set(refusals.map((b) => b.error))).toEqual(new Set(["daily_limit_exceeded"]));
    expect((g.gateway.limiter as RateLimiter).peek({ bucket: k.workspace_id, plan: free }, cat("general")).dailyRemaining).toBe(0);
  });

  it("count anonymous clients per address exactly too: 30 401s, then 429s", async () => {
    g.clock.set(Date.UTC(2026, 10, 25, 9, 0, 0)); // a new day for the anonymous bucket
    const smallest = Object.keys(policy.plans).sort((a, b) => policy.plans[a]!.requests_per_minute - policy.plans[b]!.requests_per_minute)[0]!;
    const limit = minuteLimit(policy, smallest, cat("general"));
    const answers = await burst(Array.from({ length: 200 }, () => ({ method: "GET", path: "/v1/analyses" })));
    const unauthorized = answers.filter((r) => r.status === 401);
    expect(unauthorized).toHaveLength(limit);
    expect(sorted(unauthorized.map((r) => num(r, h.remaining)))).toEqual(range(limit - 1, 0));
    expect(answers.filter((r) => r.status === 429)).toHaveLength(200 - limit);
  });
});

describe("the minute window", () => {
  it("reopens exactly at X-RateLimit-Reset, for a whole burst, and not a millisecond before", async () => {
    g.clock.set(Date.UTC(2026, 10, 24, 10, 0, 17, 250));
    const k = keys.reset;
    const limit = minuteLimit(policy, pro, cat("general"));
    const first = await burst(Array.from({ length: 200 }, () => probes.general!(k.key)));
    const reset = num(first[0]!, h.reset);
    expect(reset * 1000).toBe(Date.UTC(2026, 10, 24, 10, 1, 0));
    expect(new Set(first.map((r) => num(r, h.reset)))).toEqual(new Set([reset]));

    g.clock.set(reset * 1000 - 1);
    const before = await burst(Array.from({ length: 200 }, () => probes.general!(k.key)));
    expect(before.every((r) => r.status === 429 && header(r, "retry-after") === "1" && JSON.parse(r.body.toString()).retry_after === 1)).toBe(true);

    g.clock.set(reset * 1000);
    const after = await burst(Array.from({ length: 200 }, () => probes.general!(k.key)));
    const ok = after.filter((r) => r.status === 200);
    expect(ok).toHaveLength(limit);
    expect(sorted(ok.map((r) => num(r, h.remaining)))).toEqual(range(limit - 1, 0));
    expect(new Set(after.map((r) => num(r, h.reset)))).toEqual(new Set([reset + 60]));
    // The refused burst in between counted nothing: the daily bucket holds exactly 2 × limit.
    expect(Math.min(...ok.map((r) => num(r, h.daily_remaining)))).toBe(dailyLimit(policy, pro) - 2 * limit);
  });

  it("tells every refused request to wait exactly until the reset (a property over the moment in the minute)", async () => {
    const k = keys.property;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 59_999 }), fc.integer({ min: 0, max: 10_000 }), async (msIntoMinute, minute) => {
        const start = Date.UTC(2026, 10, 26, 0, 0, 0) + minute * 60_000;
        g.clock.set(start + msIntoMinute);
        const [a, b] = await burst([probes.general!(k.key), probes.general!(k.key)]).then((rs) => rs.sort((x, y) => x.status - y.status));
        expect([a!.status, b!.status]).toEqual([200, 429]);
        const reset = num(a!, h.reset);
        expect(reset * 1000).toBe(start + 60_000);
        expect(num(b!, h.reset)).toBe(reset);
        const wait = Math.max(1, Math.ceil((start + 60_000 - g.clock.now()) / 1000));
        expect(header(b!, "retry-after")).toBe(String(wait));
        expect(JSON.parse(b!.body.toString()).retry_after).toBe(wait);
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});
