// Billing reads the limiter (responders/billing.ts): GET /v1/billing/usage reports the caller's real minute buckets
// per category and its daily bucket, the very numbers of the X-RateLimit-* headers of the same response;
// GET /v1/billing/plan the caller's plan with the limits of x-rate-limit-policy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dailyLimit, minuteLimit } from "../../../../src/contract/policy.js";
import { apiKey, freshKey, getJson, policy, rateHeaders, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const usage = async (key: string) => {
  const r = await getJson(`${g.url}/v1/billing/usage`, { headers: apiKey(key) });
  expect(r.status).toBe(200);
  expect(schemaErrors("Usage", r.body)).toEqual([]);
  return { body: r.body, headers: rateHeaders(r.headers) };
};
const row = (body: { minute: Array<Record<string, unknown>> }, category: string) => body.minute.find((m) => m.category === category)!;

describe("GET /v1/billing/usage", () => {
  it("for the business key: 300 per minute and 50,000 per day, as its headers say", async () => {
    const h = await startGateway(); // a gateway of its own: nothing else counts in the demo workspace
    try {
      await getJson(`${h.url}/v1/analyses`, { headers: apiKey("pk_test_demo_business") });
      const r = await getJson(`${h.url}/v1/billing/usage`, { headers: apiKey("pk_test_demo_business") });
      const headers = rateHeaders(r.headers);
      expect([headers.limit, headers.dailyLimit]).toEqual([300, 50_000]);
      expect(r.body).toMatchObject({ plan: "business", workspace_id: "ws_DemoBusiness", daily_limit: 50_000, daily_remaining: 49_998, requests_today: 2 });
      expect(row(r.body, "general")).toEqual({ category: "general", multiplier: 1, limit: 300, used: 2, remaining: 298 });
    } finally {
      await h.close();
    }
  });

  it("matches the headers of the same response, and counts each category in its own bucket", async () => {
    const key = freshKey("pro");
    const h = await startGateway({ extraKeys: [key] });
    try {
      for (let i = 0; i < 3; i++) await getJson(`${h.url}/v1/reports`, { headers: apiKey(key.key) });
      const r = await getJson(`${h.url}/v1/billing/usage`, { headers: apiKey(key.key) });
      const hd = rateHeaders(r.headers);
      const general = row(r.body, "general");
      expect([general.limit, general.remaining]).toEqual([hd.limit, hd.remaining]);
      expect([r.body.daily_limit, r.body.daily_remaining, r.body.requests_today]).toEqual([hd.dailyLimit, hd.dailyRemaining, 4]);
      expect(Date.parse(r.body.window_reset_at) / 1000).toBe(hd.reset);
      expect(row(r.body, "query")).toEqual({ category: "query", multiplier: 0.5, limit: 75, used: 3, remaining: 72 });
      expect(row(r.body, "upload")).toMatchObject({ used: 0, remaining: 75 });
      // One item per category of the policy, with the policy's multipliers and floor(plan × multiplier).
      expect(r.body.minute.map((m: { category: string; multiplier: number; limit: number }) => [m.category, m.multiplier, m.limit])).toEqual(
        policy.categories.map((c) => [c.name, c.multiplier, minuteLimit(policy, "pro", c)]),
      );
    } finally {
      await h.close();
    }
  });

  it("shows a limited key's own bucket where it has fewer requests left, as its headers do (decisions G6, G7)", async () => {
    const { body, headers } = await usage("pk_test_demo_limited");
    expect(headers.limit).toBe(10);
    expect(row(body, "general")).toMatchObject({ limit: 10, remaining: headers.remaining });
    // The key's bucket is one for all its categories: it is what limits its uploads too.
    expect(row(body, "upload")).toMatchObject({ limit: 10, remaining: headers.remaining });
  });

  it("is counted like any other request (it spends the general bucket)", async () => {
    const key = freshKey("free");
    const h = await startGateway({ extraKeys: [key] });
    try {
      const a = (await getJson(`${h.url}/v1/billing/usage`, { headers: apiKey(key.key) })).body;
      const b = (await getJson(`${h.url}/v1/billing/usage`, { headers: apiKey(key.key) })).body;
      expect([row(a, "general").used, row(b, "general").used, b.requests_today]).toEqual([1, 2, 2]);
    } finally {
      await h.close();
    }
  });
});

describe("GET /v1/billing/plan", () => {
  it.each(Object.keys(policy.plans))("the %s demo workspace's plan, with the policy's limits", async (plan) => {
    const r = await getJson(`${g.url}/v1/billing/plan`, { headers: apiKey(`pk_test_demo_${plan}`) });
    expect(r.status).toBe(200);
    expect(schemaErrors("BillingPlan", r.body)).toEqual([]);
    const general = policy.categories.find((c) => c.default)!;
    expect(r.body).toMatchObject({ plan, status: "active", requests_per_minute: minuteLimit(policy, plan, general), requests_per_day: dailyLimit(policy, plan) });
    expect(r.body.renews_at).toBe(plan === "free" ? null : r.body.current_period_end);
    expect([r.body.current_period_start, r.body.current_period_end]).toEqual(["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z"]);
  });
});
