// Stage `rateLimit`: counts the request in its workspace's buckets (limiter.ts), in the category of the matched
// operation (the policy's default category when none matches), and answers 429 when a limit is exhausted. Every
// later answer carries the five X-RateLimit-* headers set here. A request without valid credentials has no
// workspace: it is counted per client address on the policy's smallest plan (decision M2).
// The headers, the 429 and the anonymous bucket are rate-answers.ts's, shared with serve.ts, stages/malformed.ts and
// responders/examples.ts.
// With `--redis` the limiter answers a promise (limiter-redis.ts); a Redis that does not answer gives 503 with
// Retry-After (decision SB2), counted nowhere.
import type { Decision, Subject } from "../access/limiter.js";
import type { RequestContext } from "../pipeline/context.js";
import { anonymousBucket, defaultCategoryOf, rateHeaders, smallestPlan, tooMany, unavailable } from "../access/rate-answers.js";
import type { Outcome, StageFactory } from "../pipeline/stage.js";
import type { RateLimitPolicy } from "../../../contract/policy.js";

export const rateLimit: StageFactory = (s) => {
  const policy = s.policy;
  const defaultCategory = defaultCategoryOf(policy);
  const anonymousPlan = smallestPlan(policy);
  return function rateLimit(ctx) {
    const m = ctx.match;
    const p = ctx.principal;
    const subject: Subject = p
      ? { bucket: p.workspaceId, plan: p.plan, key: p.key }
      : { bucket: anonymousBucket(ctx.req.socket.remoteAddress), plan: anonymousPlan };
    const d = s.limiter.take(subject, m.kind === "ok" ? m.route.category : defaultCategory);
    return d instanceof Promise ? d.then((v) => answer(policy, ctx, v), unavailable) : answer(policy, ctx, d);
  };
};

function answer(policy: RateLimitPolicy, ctx: RequestContext, d: Decision): Outcome {
  ctx.decision = d;
  ctx.rate = rateHeaders(policy, d);
  return d.allowed ? undefined : tooMany(policy, d, ctx.rate);
}
