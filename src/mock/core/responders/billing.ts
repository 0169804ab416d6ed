// Responder `billing`: the workspace's plan and usage as the edge knows them. `GET /v1/billing/plan` gives the
// caller's plan with the limits of `x-rate-limit-policy`; `GET /v1/billing/usage` reads the rate limiter: the
// minute bucket of each category and the daily bucket, after this request was counted, so its numbers are those
// of the request's own X-RateLimit-* headers. Not stored state: it answers the same with --stateless.
import type { components } from "../../../../generated/schema.js";
import { planLimits } from "../../../contract/policy.js";
import { isoSeconds } from "../util/ids.js";
import type { Decision, Subject } from "../access/limiter.js";
import { byOperation } from "./by-operation.js";
import type { RequestContext } from "../pipeline/context.js";
import { unavailable } from "../access/rate-answers.js";
import type { Services } from "../pipeline/services.js";
import type { Outcome } from "../pipeline/stage.js";

type Usage = components["schemas"]["Usage"];
type PlanName = components["schemas"]["BillingPlanName"];

/** The current billing period: the calendar month (UTC) of `now`. */
export function billingPeriod(now: number): { start: string; end: string } {
  const d = new Date(now);
  return { start: isoSeconds(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), end: isoSeconds(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) };
}

export const billing = byOperation("billing", {
  getBillingPlan(s, ctx) {
    const p = ctx.principal!;
    const limits = planLimits(s.policy, p.plan);
    const period = billingPeriod(s.clock.now());
    return ctx.json(200, {
      workspace_id: p.workspaceId,
      plan: p.plan as PlanName,
      status: "active",
      requests_per_minute: limits.requests_per_minute,
      requests_per_day: limits.requests_per_day,
      current_period_start: period.start,
      current_period_end: period.end,
      // "null on the `free` plan" (BillingPlan.renews_at); the mock's plans never lapse, so never `canceled`.
      renews_at: p.plan === "free" ? null : period.end,
    } satisfies components["schemas"]["BillingPlan"]);
  },
  getBillingUsage(s, ctx) {
    const p = ctx.principal!;
    const subject: Subject = { bucket: p.workspaceId, plan: p.plan, key: p.key };
    const counted = ctx.decision!;
    // This request's own category: the verdict its headers show; the others as they stand.
    const decisions = s.policy.categories.map((c): Decision | Promise<Decision> => (c === ctx.route.category ? counted : s.limiter.peek(subject, c)));
    if (decisions.some((d) => d instanceof Promise)) return Promise.all(decisions).then((all) => usage(s, ctx, all), unavailable);
    return usage(s, ctx, decisions as Decision[]);
  },
});

function usage(s: Services, ctx: RequestContext, decisions: readonly Decision[]): Outcome {
  const p = ctx.principal!;
  const counted = ctx.decision!;
  const minute = s.policy.categories.map((c, i) => {
    const d = decisions[i]!;
    return { category: c.name as Usage["minute"][number]["category"], multiplier: c.multiplier, limit: d.limit, used: d.used, remaining: d.remaining };
  });
  const period = billingPeriod(s.clock.now());
  return ctx.json(200, {
    workspace_id: p.workspaceId,
    plan: p.plan as PlanName,
    window_reset_at: isoSeconds(counted.reset * 1000),
    requests_today: counted.dailyUsed,
    daily_limit: counted.dailyLimit,
    daily_remaining: counted.dailyRemaining,
    minute,
    // The mock meters no media or text: nothing is analysed for real.
    media_minutes_this_period: 0,
    text_characters_this_period: 0,
    period_start: period.start,
    period_end: period.end,
  } satisfies Usage);
}
