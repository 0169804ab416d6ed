// Rate limits over HTTP: per plan and category (from x-rate-limit-policy), the exact count before the 429, the
// daily limit and the window reset by the injected clock, the headers on every response, and exactness under
// concurrency.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { dailyLimit, minuteLimit } from "../../../../src/contract/policy.js";
import { ANALYSIS_ID, apiKey, contract, freshKey, getJson, policy, rateHeaders, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

const ownBucket = freshKey("pro", { rate_limit_rpm: 10 });
const keys = {
  ownBucket,
  ownBucketSibling: { ...freshKey("pro"), workspace_id: ownBucket.workspace_id },
  free: freshKey("free"),
  freeDaily: freshKey("free"),
  limited: freshKey("pro", { rate_limit_rpm: 10 }),
  concurrent: freshKey("pro"),
  crafted: freshKey("pro"),
  everything: freshKey("business"),
  reports: freshKey("pro"),
  ...Object.fromEntries(Object.keys(policy.plans).map((p) => [`plan_${p}`, freshKey(p)])),
};

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway({ extraKeys: Object.values(keys) });
});
afterAll(() => g.close());

const cat = (name: string) => policy.categories.find((c) => c.name === name)!;

/** Sends requests one after another until the first 429; returns how many passed and the 429. */
async function untilRefused(path: string, key: string, init: RequestInit = {}, max = 1000) {
  for (let n = 0; n < max; n++) {
    const r = await getJson(g.url + path, { ...init, headers: { ...apiKey(key), ...(init.headers as object) } });
    if (r.status === 429) return { passed: n, refusal: r };
    expect(r.status).toBeLessThan(400);
  }
  throw new Error(`no 429 after ${max} requests`);
}

describe("rate limits per plan and category", () => {
  it.each(Object.keys(policy.plans))("%s: X-RateLimit-Limit is the policy's limit of each category, and the daily limit", async (plan) => {
    const key = (keys as Record<string, { key: string }>)[`plan_${plan}`]!.key;
    const probes: Array<[string, string, RequestInit?]> = [
      ["general", "/v1/analyses"],
      ["query", "/v1/reports"],
      ["streaming", `/v1/analysis/${ANALYSIS_ID}/stream`],
      ["upload", "/v1/analysis/stream-upload?media_type=audio", { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: "RIFF" }],
    ];
    for (const [category, path, init] of probes) {
      const res = await fetch(g.url + path, { ...init, headers: { ...apiKey(key), ...(init?.headers as object) } });
      await res.body?.cancel();
      expect(res.status, path).toBeLessThan(300);
      const h = rateHeaders(res.headers);
      expect(h.limit, `${plan} ${category}`).toBe(minuteLimit(policy, plan, cat(category)));
      expect(h.dailyLimit).toBe(dailyLimit(policy, plan));
    }
  });

  it("allows exactly the limit, then answers 429 rate_limit_exceeded with Retry-After and the documented body", async () => {
    g.clock.set(Date.UTC(2026, 10, 21, 12, 5, 20));
    const { passed, refusal } = await untilRefused("/v1/analyses", keys.free.key);
    expect(passed).toBe(minuteLimit(policy, "free", cat("general")));
    expect(schemaErrors("RateLimitError", refusal.body)).toEqual([]);
    expect(refusal.body).toEqual({
      detail: `Rate limit of ${passed} requests per minute exceeded.`,
      error: "rate_limit_exceeded",
      limit: passed,
      window: "1 minute",
      retry_after: 40,
    });
    expect(refusal.headers.get("retry-after")).toBe("40");
    expect(rateHeaders(refusal.headers)).toMatchObject({ limit: passed, remaining: 0, reset: Date.UTC(2026, 10, 21, 12, 6) / 1000 });
  });

  it("gives Pro 75 on /v1/reports, in a bucket apart from its 150 general ones", async () => {
    g.clock.set(Date.UTC(2026, 10, 21, 12, 7, 0));
    expect((await untilRefused("/v1/reports", keys.reports.key)).passed).toBe(75);
    const general = await getJson(`${g.url}/v1/analyses`, { headers: apiKey(keys.reports.key) });
    expect(general.status).toBe(200);
    expect(rateHeaders(general.headers)).toMatchObject({ limit: 150, remaining: 149, dailyRemaining: 10000 - 76 });
  });

  it("caps a key with rate_limit_rpm (the demo limited key too)", async () => {
    g.clock.set(Date.UTC(2026, 10, 21, 12, 8, 0));
    expect((await untilRefused("/v1/analyses", keys.limited.key)).passed).toBe(10);
    expect((await untilRefused("/v1/analyses", "pk_test_demo_limited")).passed).toBe(10);
  });

  it("counts a key's rate_limit_rpm for that key alone, across categories; other keys of its workspace do not spend it", async () => {
    g.clock.set(Date.UTC(2026, 10, 21, 12, 9, 0));
    const sibling = apiKey(keys.ownBucketSibling.key); // same workspace, no limit of its own
    for (let i = 0; i < 10; i++) expect((await getJson(`${g.url}/v1/analyses`, { headers: sibling })).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(keys.ownBucket.key) })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await getJson(`${g.url}/v1/reports`, { headers: apiKey(keys.ownBucket.key) })).status).toBe(200);
    for (const path of ["/v1/analyses", "/v1/reports"]) {
      const refused = await getJson(g.url + path, { headers: apiKey(keys.ownBucket.key) });
      expect(refused.status, path).toBe(429);
      expect(refused.body).toMatchObject({ error: "rate_limit_exceeded", limit: 10, window: "1 minute" });
      expect(rateHeaders(refused.headers)).toMatchObject({ limit: 10, remaining: 0 });
    }
    const other = await getJson(`${g.url}/v1/analyses`, { headers: sibling });
    expect(rateHeaders(other.headers)).toMatchObject({ limit: 150, remaining: 150 - 17, dailyRemaining: 10_000 - 21 });
  });

  it("takes the category from the matched route template, so an id in the URL cannot change it", async () => {
    // The raw path contains "/stream", which the policy's path rules would call streaming (75); the route
    // /v1/analyses/{analysis_id} is general (150).
    const r = await getJson(`${g.url}/v1/analyses/stream_reports_upload`, { headers: apiKey(keys.crafted.key) });
    expect(r.status).toBe(422);
    expect(rateHeaders(r.headers).limit).toBe(150);
  });

  it("resets the window at X-RateLimit-Reset (injected clock)", async () => {
    const key = freshKey("pro", { rate_limit_rpm: 10 });
    const g2 = await startGateway({ extraKeys: [key] });
    try {
      const { refusal } = await (async () => {
        for (;;) {
          const r = await getJson(`${g2.url}/v1/analyses`, { headers: apiKey(key.key) });
          if (r.status === 429) return { refusal: r };
        }
      })();
      const reset = rateHeaders(refusal.headers).reset;
      g2.clock.set(reset * 1000 - 1);
      expect((await getJson(`${g2.url}/v1/analyses`, { headers: apiKey(key.key) })).status).toBe(429);
      g2.clock.set(reset * 1000);
      const after = await getJson(`${g2.url}/v1/analyses`, { headers: apiKey(key.key) });
      expect(after.status).toBe(200);
      expect(rateHeaders(after.headers)).toMatchObject({ remaining: 9, reset: reset + 60 });
    } finally {
      await g2.close();
    }
  });

  it("enforces the daily limit with daily_limit_exceeded until the UTC day ends (injected clock)", async () => {
    g.clock.set(Date.UTC(2026, 10, 21, 21, 30, 0));
    const perMinute = minuteLimit(policy, "free", cat("general"));
    const perDay = dailyLimit(policy, "free");
    let passed = 0;
    let refusal;
    for (let minute = 0; minute < 100 && !refusal; minute++) {
      const r = await untilRefused("/v1/analyses", keys.freeDaily.key);
      passed += r.passed;
      if (r.refusal.body.error === "daily_limit_exceeded") refusal = r.refusal;
      g.clock.advance(60_000);
    }
    expect(passed).toBe(perDay);
    expect(perDay % perMinute).not.toBe(0); // the last minute was cut short by the daily limit, not the minute one
    expect(schemaErrors("RateLimitError", refusal!.body)).toEqual([]);
    const retry = Math.ceil((Date.UTC(2026, 10, 22) - (g.clock.now() - 60_000)) / 1000);
    expect(refusal!.body).toEqual({ detail: `Daily limit of ${perDay} requests exceeded.`, error: "daily_limit_exceeded", limit: perDay, window: "1 day", retry_after: retry });
    expect(refusal!.headers.get("retry-after")).toBe(String(retry));
    expect(rateHeaders(refusal!.headers)).toMatchObject({ dailyLimit: perDay, dailyRemaining: 0 });
    g.clock.set(Date.UTC(2026, 10, 22, 0, 0, 0));
    const nextDay = await getJson(`${g.url}/v1/analyses`, { headers: apiKey(keys.freeDaily.key) });
    expect(nextDay.status).toBe(200);
    expect(rateHeaders(nextDay.headers).dailyRemaining).toBe(perDay - 1);
  });

  it("is exact under concurrency: 200 parallel requests against 150 give exactly 150 successes", async () => {
    g.clock.set(Date.UTC(2026, 10, 22, 9, 0, 0));
    const results = await Promise.all(
      Array.from({ length: 200 }, () => fetch(`${g.url}/v1/analyses`, { headers: apiKey(keys.concurrent.key) }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(results.filter((s) => s === 200)).toHaveLength(150);
    expect(results.filter((s) => s === 429)).toHaveLength(50);
  });

  it("counts unauthenticated requests per client in an anonymous bucket of the smallest plan", async () => {
    g.clock.set(Date.UTC(2026, 10, 22, 10, 0, 0));
    const smallest = Object.keys(policy.plans).sort((a, b) => policy.plans[a]!.requests_per_minute - policy.plans[b]!.requests_per_minute)[0]!;
    const limit = minuteLimit(policy, smallest, cat("general"));
    const statuses: number[] = [];
    let last;
    for (let i = 0; i <= limit; i++) {
      last = await getJson(`${g.url}/v1/analyses`);
      statuses.push(last.status);
      if (i === 0) expect(rateHeaders(last.headers)).toMatchObject({ limit, remaining: limit - 1 });
    }
    expect(statuses.slice(0, limit).every((s) => s === 401)).toBe(true);
    expect(statuses[limit]).toBe(429);
    // A workspace's own buckets are not touched.
    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(keys.everything.key) })).status).toBe(200);
  });
});

describe("X-RateLimit-* headers", () => {
  const expectHeaders = (h: Headers | Record<string, unknown>, what: string) => {
    const get = (n: string) => (h instanceof Headers ? h.get(n) : (h[n.toLowerCase()] as string | undefined));
    for (const name of [policy.headers.limit, policy.headers.remaining, policy.headers.reset, policy.headers.daily_limit, policy.headers.daily_remaining]) {
      expect(get(name), `${name} on ${what}`).toMatch(/^\d+$/);
    }
  };

  it("are on every response of every operation under /v1, /aria and /ws: successes, errors, 429s, SSE and the WebSocket upgrade", async () => {
    g.clock.set(Date.UTC(2026, 10, 23, 8, 0, 0));
    const k = apiKey(keys.everything.key);
    let n = 0;
    for (const route of contract.router.routes) {
      if (!route.rateLimited || route.successCode === 101) continue;
      const path = route.template.replace(/\{[^}]+\}/g, "x"); // ids that fail their patterns: 422, still a response
      const res = await fetch(g.url + path, { method: route.method.toUpperCase(), headers: k });
      await res.body?.cancel();
      expectHeaders(res.headers, `${route.method} ${route.template} (${res.status})`);
      if (++n % 100 === 0) g.clock.advance(60_000);
    }
    const extra: Array<[string, RequestInit]> = [
      ["/v1/analyses", {}], // 401
      ["/v1/analyses", { headers: apiKey("pk_test_demo_frozen") }], // 403
      ["/v1/nothing-here", { headers: k }], // 404
      ["/v1/analyses", { method: "PUT", headers: k }], // 405
      ["/v1/speakers", { method: "POST", headers: { ...k, "Content-Type": "application/json" }, body: "{" }], // 400
      ["/v1/analyses", { headers: { ...k, Prefer: "code=500" } }], // Prefer'd error
      [`/v1/analysis/${ANALYSIS_ID}/stream`, { headers: k }], // SSE
    ];
    for (const [path, init] of extra) {
      const res = await fetch(g.url + path, init);
      await res.body?.cancel();
      expectHeaders(res.headers, `${init.method ?? "GET"} ${path} (${res.status})`);
    }
    const wsBase = g.url.replace("http", "ws");
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const ws = new WebSocket(`${wsBase}/ws/analyses/${ANALYSIS_ID}`, { headers: k });
      ws.on("upgrade", (res) => {
        resolve(res.headers);
        ws.terminate();
      });
      ws.on("error", reject);
    });
    expectHeaders(headers, "the 101 of /ws/analyses");
    const refused = await new Promise<Record<string, unknown>>((resolve) => {
      const ws = new WebSocket(`${wsBase}/v1/stream`);
      ws.on("unexpected-response", (_req, res) => resolve(res.headers));
      ws.on("error", () => {});
    });
    expectHeaders(refused, "the 401 before a WebSocket upgrade");
  });

  it("are absent on the gateway's own paths", async () => {
    for (const p of ["/health", "/healthz", "/openapi.yaml", "/swagger.html"]) {
      const res = await fetch(g.url + p);
      await res.body?.cancel();
      expect(res.headers.get(policy.headers.limit), p).toBeNull();
    }
  });
});
