// The rate limiter's decisions as answers (decision M2): the five X-RateLimit-* headers, the 429 of the limit that
// refused, the 429 `Prefer: code=429` asks for, and the anonymous bucket of a request without a workspace. Below the
// stages that share them (stages/rate-limit.ts, stages/malformed.ts, responders/examples.ts) and serve.ts (LY1).
import type { RateLimitPolicy } from "../../../contract/policy.js";
import { json, type Reply } from "../http/reply.js";
import { DependencyUnavailable } from "../state/shared-state.js";
import type { Decision, Limiter } from "./limiter.js";

/** The verdict of the rate limiter on a request, as the headers it answers with and, when refused, its 429. */
export interface Counted {
  rate: readonly string[];
  refused: Reply | null;
}

/**
 * Counts a request that never reached `rateLimit` (one node:http could not parse, or `malformed` refused) in the
 * anonymous bucket of the client's address, in the policy's default category: it has no workspace, and its
 * path, if any, cannot be trusted (decision G26). The answer then carries that bucket's headers, or is its 429.
 */
export function countAnonymous(s: { policy: RateLimitPolicy; limiter: Limiter }): (address: string | undefined) => Counted | Promise<Counted> {
  const subjectPlan = smallestPlan(s.policy);
  const category = defaultCategoryOf(s.policy);
  return (address) => {
    const d = s.limiter.take({ bucket: anonymousBucket(address), plan: subjectPlan }, category);
    return d instanceof Promise ? d.then((v) => counted(s.policy, v)) : counted(s.policy, d);
  };
}

/**
 * The same, counted synchronously in this process alone (`Limiter.takeHere`): for the answers http/server.ts writes
 * to the socket of a request node:http refused, where nothing can be awaited.
 */
export function countAnonymousHere(s: { policy: RateLimitPolicy; limiter: Limiter }): (address: string | undefined) => Counted {
  const subjectPlan = smallestPlan(s.policy);
  const category = defaultCategoryOf(s.policy);
  return (address) => counted(s.policy, s.limiter.takeHere({ bucket: anonymousBucket(address), plan: subjectPlan }, category));
}

function counted(policy: RateLimitPolicy, d: Decision): Counted {
  const rate = rateHeaders(policy, d);
  return { rate, refused: d.allowed ? null : tooMany(policy, d, rate) };
}

/** Seconds a 503 for an unreachable Redis or database asks the client to wait (decision SB2). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/**
 * The 503 of a request the gateway cannot serve because an engine it needs (Redis, PostgreSQL) does not answer:
 * nothing was counted or changed, so the client retries after `Retry-After` (decision SB2). Any other error is
 * thrown on, to the server's 500.
 */
const WHAT = { redis: "its Redis", postgres: "its database", replica: "the replica that owns this workspace" } as const;

export function unavailable(e: unknown): Reply {
  if (!(e instanceof DependencyUnavailable)) throw e;
  return json(
    503,
    { detail: `The sandbox cannot reach ${WHAT[e.dependency]} right now; retry shortly.`, error: "dependency_unavailable" },
    { "Retry-After": String(DEPENDENCY_RETRY_AFTER_SECONDS), "Cache-Control": "no-store" },
  );
}

/** Requests without a workspace are counted per client address (decision M2). */
export function anonymousBucket(address: string | undefined): string {
  return `anonymous:${address ?? "?"}`;
}

/** The plan of the anonymous buckets: the policy's smallest. */
export function smallestPlan(policy: RateLimitPolicy): string {
  return Object.entries(policy.plans).sort(([, a], [, b]) => a.requests_per_minute - b.requests_per_minute)[0]![0];
}

export function defaultCategoryOf(policy: RateLimitPolicy) {
  return policy.categories.find((c) => c.default)!;
}

/** A flat list rather than an object: its names come from the policy, and an object with computed names is slow to make. */
export function rateHeaders(policy: RateLimitPolicy, d: Decision): string[] {
  const h = policy.headers;
  return [
    h.limit,
    String(d.limit),
    h.remaining,
    String(d.remaining),
    h.reset,
    String(d.reset),
    h.daily_limit,
    String(d.dailyLimit),
    h.daily_remaining,
    String(d.dailyRemaining),
  ];
}

/**
 * The 429 a request asks for with `Prefer: code=429` (or a fault rule sets): the limiter's real refusal as if the
 * window (`daily` when the example named is the daily one) were exhausted now, so its body's `limit` and
 * `retry_after` and its `X-RateLimit-*` and `Retry-After` headers agree, all read from `x-rate-limit-policy` and
 * the request's own buckets (decision MC4).
 */
export function askedTooMany(policy: RateLimitPolicy, d: Decision, example: unknown, now: number): Reply {
  const daily = (example as { error?: unknown } | null)?.error === policy.errors.daily.error;
  const retryAfter = daily ? secondsTo(DAY_MS - (now % DAY_MS)) : secondsTo(d.reset * 1000 - now);
  const forced: Decision = { ...d, allowed: false, exceeded: daily ? "daily" : "minute", remaining: daily ? d.remaining : 0, dailyRemaining: daily ? 0 : d.dailyRemaining, retryAfter };
  return tooMany(policy, forced, rateHeaders(policy, forced));
}

const DAY_MS = 86_400_000;

function secondsTo(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The 429 of the limit that refused the request: the daily one when both are exhausted. */
export function tooMany(policy: RateLimitPolicy, d: Decision, rate: readonly string[]): Reply {
  const daily = d.exceeded === "daily";
  const e = daily ? policy.errors.daily : policy.errors.minute;
  const limit = daily ? d.dailyLimit : d.limit;
  return json(
    429,
    {
      detail: daily ? `Daily limit of ${limit} requests exceeded.` : `Rate limit of ${limit} requests per minute exceeded.`,
      error: e.error,
      limit,
      window: e.window,
      retry_after: d.retryAfter,
    },
    { [policy.headers.retry_after]: String(d.retryAfter) },
    rate,
  );
}
