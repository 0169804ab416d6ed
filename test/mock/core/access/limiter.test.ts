// The limiter on its own: limits come from x-rate-limit-policy (through src/contract/policy.ts), windows move with the
// injected clock, and counting is exact.
import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../../../src/mock/core/access/limiter.js";
import { categoryOf, dailyLimit, minuteLimit } from "../../../../src/contract/policy.js";
import { ManualClock, policy } from "../../../helpers/mock.js";

const general = policy.categories.find((c) => c.default)!;
const plans = Object.keys(policy.plans);

const query = policy.categories.find((c) => c.name === "query")!;

function drain(l: RateLimiter, bucket: string, plan: string, category = general, keyRpm?: number) {
  let allowed = 0;
  for (;;) {
    const d = l.take({ bucket, plan, key: keyRpm === undefined ? null : { bucket: `key:${bucket}`, rpm: keyRpm } }, category);
    if (!d.allowed) return { allowed, refusal: d };
    allowed++;
  }
}

describe("RateLimiter", () => {
  it.each(plans)("allows exactly the %s plan's per-minute limit in each category, then refuses with rate_limit_exceeded", (plan) => {
    for (const category of policy.categories) {
      const l = new RateLimiter(policy, new ManualClock());
      const { allowed, refusal } = drain(l, "ws_A", plan, category);
      expect(allowed).toBe(Math.floor(policy.plans[plan]!.requests_per_minute * category.multiplier));
      expect(refusal).toMatchObject({ exceeded: "minute", remaining: 0, limit: allowed });
    }
  });

  it("gives Pro 150 per minute in general and 75 on the reports paths (the issue's worked example)", () => {
    const reports = categoryOf(policy, "/v1/reports");
    expect(minuteLimit(policy, "pro", general)).toBe(150);
    expect(minuteLimit(policy, "pro", reports)).toBe(75);
    expect(drain(new RateLimiter(policy, new ManualClock()), "ws_A", "pro", reports).allowed).toBe(75);
  });

  it("keeps minute buckets per (workspace, category) and the daily bucket per workspace", () => {
    const l = new RateLimiter(policy, new ManualClock());
    const a = drain(l, "ws_A", "free", general);
    const b = drain(l, "ws_A", "free", query); // another category of the same workspace: its own minute bucket
    const c = drain(l, "ws_B", "free", general); // another workspace: its own buckets
    expect([a.allowed, b.allowed, c.allowed]).toEqual([30, 15, 30]);
    expect(b.refusal.dailyRemaining).toBe(dailyLimit(policy, "free") - 45);
    expect(c.refusal.dailyRemaining).toBe(dailyLimit(policy, "free") - 30);
  });

  it("knows only the policy's own plans: a name inherited from Object.prototype is no plan", () => {
    for (const plan of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(() => minuteLimit(policy, plan, general), plan).toThrow(`unknown plan ${plan}`);
      expect(() => dailyLimit(policy, plan), plan).toThrow(`unknown plan ${plan}`);
    }
  });

  it("caps a key at its rate_limit_rpm, the minimum of key and plan limits", () => {
    const l = new RateLimiter(policy, new ManualClock());
    expect(drain(l, "ws_A", "pro", general, 10).allowed).toBe(10);
    expect(drain(l, "ws_B", "free", general, 1000).allowed).toBe(30);
  });

  describe("a key's own rate_limit_rpm: a bucket of the key's own, for all categories together", () => {
    const limited = { bucket: "key:limited", rpm: 10 };
    const take = (l: RateLimiter, key: typeof limited | null, category = general) => l.take({ bucket: "ws_A", plan: "pro", key }, category);

    it("is not spent by the other keys of its workspace", () => {
      const l = new RateLimiter(policy, new ManualClock());
      for (let i = 0; i < 10; i++) expect(take(l, null).allowed).toBe(true); // another key of ws_A, without a limit
      let allowed = 0;
      while (take(l, limited).allowed) allowed++;
      expect(allowed).toBe(10);
    });

    it("counts every category of the key in one bucket, and its refusal names the key's limit", () => {
      const l = new RateLimiter(policy, new ManualClock());
      for (let i = 0; i < 6; i++) expect(take(l, limited, general).allowed).toBe(true);
      for (let i = 0; i < 4; i++) expect(take(l, limited, query).allowed).toBe(true);
      for (const category of [general, query]) expect(take(l, limited, category)).toMatchObject({ allowed: false, exceeded: "minute", limit: 10, remaining: 0 });
      expect(take(l, null, general)).toMatchObject({ allowed: true, limit: 150, remaining: 150 - 7 }); // the workspace goes on
    });

    it("still has to pass the workspace's buckets, and the headers report whichever has fewer requests left", () => {
      const l = new RateLimiter(policy, new ManualClock());
      expect(take(l, limited, query)).toMatchObject({ limit: 10, remaining: 9 }); // key: 9 left, workspace query: 74
      for (let i = 0; i < 70; i++) take(l, null, query);
      expect(take(l, limited, query)).toMatchObject({ allowed: true, limit: 75, remaining: 3 }); // workspace: 3, key: 8
      for (let i = 0; i < 3; i++) take(l, null, query);
      expect(take(l, limited, query)).toMatchObject({ allowed: false, exceeded: "minute", limit: 75, remaining: 0 });
      expect(take(l, limited, general)).toMatchObject({ allowed: true, limit: 10, remaining: 7 });
    });

    it("refuses without counting in any bucket", () => {
      const l = new RateLimiter(policy, new ManualClock());
      for (let i = 0; i < 10; i++) take(l, limited);
      for (let i = 0; i < 5; i++) expect(take(l, limited).allowed).toBe(false);
      expect(l.peek({ bucket: "ws_A", plan: "pro" }, general)).toMatchObject({ remaining: 140, dailyRemaining: 10_000 - 10 });
    });
  });

  it("resets the minute window at X-RateLimit-Reset, and not a millisecond before", () => {
    const clock = new ManualClock();
    const l = new RateLimiter(policy, clock);
    const { refusal } = drain(l, "ws_A", "free");
    expect(refusal.reset * 1000).toBe(Date.UTC(2026, 10, 21, 12, 1, 0));
    expect(refusal.retryAfter).toBe(30);
    clock.set(refusal.reset * 1000 - 1);
    expect(l.take({ bucket: "ws_A", plan: "free" }, general).allowed).toBe(false);
    clock.set(refusal.reset * 1000);
    const d = l.take({ bucket: "ws_A", plan: "free" }, general);
    expect(d).toMatchObject({ allowed: true, remaining: 29, reset: refusal.reset + 60 });
  });

  it("refuses with daily_limit_exceeded after the daily limit, until the UTC day ends", () => {
    const clock = new ManualClock();
    const l = new RateLimiter(policy, clock);
    let allowed = 0;
    for (let minute = 0; ; minute++) {
      const { allowed: n, refusal } = drain(l, "ws_A", "free");
      allowed += n;
      if (refusal.exceeded === "daily") {
        expect(refusal).toMatchObject({ dailyRemaining: 0, dailyLimit: 500 });
        // 12:00:30 + minutes; the day ends at 24:00:00.
        expect(refusal.retryAfter).toBe(Math.ceil((Date.UTC(2026, 10, 22) - clock.now()) / 1000));
        break;
      }
      clock.advance(60_000);
    }
    expect(allowed).toBe(dailyLimit(policy, "free"));
    clock.set(Date.UTC(2026, 10, 22, 0, 0, 0));
    expect(l.take({ bucket: "ws_A", plan: "free" }, general)).toMatchObject({ allowed: true, dailyRemaining: 499 });
  });

  it("does not count refused requests, and peek counts nothing", () => {
    const l = new RateLimiter(policy, new ManualClock());
    drain(l, "ws_A", "free");
    for (let i = 0; i < 10; i++) l.take({ bucket: "ws_A", plan: "free" }, general);
    expect(l.peek({ bucket: "ws_A", plan: "free" }, general).dailyRemaining).toBe(500 - 30);
  });

  it("forgets ended windows when pruned", () => {
    const clock = new ManualClock();
    const l = new RateLimiter(policy, clock);
    l.take({ bucket: "anonymous:1", plan: "free" }, general);
    expect(l.size).toBe(2);
    clock.advance(86_400_000);
    l.prune();
    expect(l.size).toBe(0);
  });
});
