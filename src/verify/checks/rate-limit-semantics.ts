// rate-limit-semantics: the X-RateLimit-* values mean what spec §8 and `x-rate-limit-policy` say, over the run.
//
// On every rate-limited response: Remaining ≤ Limit and Daily-Remaining ≤ Daily-Limit.
// For one caller (the same credential header) and one category, over the run:
//   - X-RateLimit-Limit and X-RateLimit-Daily-Limit do not change;
//   - within one window (the same X-RateLimit-Reset) Remaining never goes up, and after a 2xx the next 2xx shows
//     less (a request that succeeded was counted; other traffic of the workspace can only lower it further);
//   - the limits fit the policy: there is one plan whose daily limit is Daily-Limit and, for every category seen,
//     Limit = min(key cap, floor(plan rpm × multiplier)), the key cap (`rate_limit_rpm`) being absent or one
//     number for the whole run (spec §8 rules 1-2, decision R3). The plan itself is not known, so any plan fits.
// Requests without credentials are counted in buckets the spec does not describe (the mock's choice is M2), so only
// the first rule applies to them.
//
// Stateful: create one per run. It assumes exchanges arrive in the order the requests were answered, which holds
// for the verifier (one request at a time); a proxy seeing concurrent traffic would need to order them first.
import { minuteLimit, type CategoryRule, type RateLimitPolicy } from "../../contract/policy.js";
import type { ContractView } from "../requests/contract-view.js";
import type { Check, Exchange } from "../types.js";
import { integerHeader } from "./util.js";

interface Values {
  limit: number;
  remaining: number;
  reset: number;
  dailyLimit: number;
  dailyRemaining: number;
}

interface Caller {
  limits: Map<string, number>;
  categories: Map<string, CategoryRule>;
  dailyLimit?: number;
  /** Last Remaining seen per category and window, and whether that response was a 2xx. */
  last: Map<string, { remaining: number; ok: boolean }>;
  /** The policy mismatch is reported once, where it first shows. */
  misfitReported: boolean;
}

export function rateLimitSemantics(view: ContractView): Check {
  const callers = new Map<string, Caller>();
  return {
    name: "rate-limit-semantics",
    description: "X-RateLimit-* values are consistent, count down within a window and fit x-rate-limit-policy.",
    check(exchange) {
      if (!exchange.operation.rateLimited) return null;
      const v = read(view, exchange);
      if (!v) return null; // missing or malformed headers: rate-limit-headers reports them
      const problems: string[] = [];
      if (v.remaining > v.limit) problems.push(`X-RateLimit-Remaining ${v.remaining} exceeds X-RateLimit-Limit ${v.limit}`);
      if (v.dailyRemaining > v.dailyLimit) problems.push(`X-RateLimit-Daily-Remaining ${v.dailyRemaining} exceeds X-RateLimit-Daily-Limit ${v.dailyLimit}`);
      const id = exchange.facts.credentials === "header" ? exchange.facts.credentialId : null;
      if (id) {
        let caller = callers.get(id);
        if (!caller) callers.set(id, (caller = { limits: new Map(), categories: new Map(), last: new Map(), misfitReported: false }));
        problems.push(...overRun(view.policy, caller, exchange, v));
      }
      return problems;
    },
  };
}

function read(view: ContractView, { response }: Exchange): Values | null {
  const [limit, remaining, reset, dailyLimit, dailyRemaining] = view.rateHeaders.map((h) => integerHeader(response.headers, h));
  const all = [limit, remaining, reset, dailyLimit, dailyRemaining];
  if (all.some((n) => n === undefined || Number.isNaN(n))) return null;
  return { limit: limit!, remaining: remaining!, reset: reset!, dailyLimit: dailyLimit!, dailyRemaining: dailyRemaining! };
}

function overRun(policy: RateLimitPolicy, caller: Caller, { operation, response }: Exchange, v: Values): string[] {
  const problems: string[] = [];
  const category = operation.category;
  const earlier = caller.limits.get(category.name);
  if (earlier === undefined) caller.limits.set(category.name, v.limit);
  else if (earlier !== v.limit) problems.push(`X-RateLimit-Limit for the ${category.name} category changed during the run: ${earlier}, now ${v.limit}`);
  caller.categories.set(category.name, category);
  if (caller.dailyLimit === undefined) caller.dailyLimit = v.dailyLimit;
  else if (caller.dailyLimit !== v.dailyLimit) problems.push(`X-RateLimit-Daily-Limit changed during the run: ${caller.dailyLimit}, now ${v.dailyLimit}`);

  const window = `${category.name}@${v.reset}`;
  const ok = response.status >= 200 && response.status < 300;
  const before = caller.last.get(window);
  if (before && v.remaining > before.remaining) {
    problems.push(`X-RateLimit-Remaining went up within one window (X-RateLimit-Reset ${v.reset}, ${category.name}): ${before.remaining}, then ${v.remaining}`);
  } else if (before && before.ok && ok && v.remaining === before.remaining) {
    problems.push(`X-RateLimit-Remaining stayed at ${v.remaining} after a successful request in the same window (X-RateLimit-Reset ${v.reset}, ${category.name}): the request was not counted`);
  }
  caller.last.set(window, { remaining: v.remaining, ok });

  if (!caller.misfitReported && earlier === undefined && !fitsPolicy(policy, caller)) {
    caller.misfitReported = true;
    problems.push(misfit(policy, caller));
  }
  return problems;
}

/** Is there a plan and a key cap that give every category limit seen and the daily limit? */
export function fitsPolicy(policy: RateLimitPolicy, caller: Pick<Caller, "limits" | "categories" | "dailyLimit">): boolean {
  const seen = [...caller.limits].map(([name, limit]) => [caller.categories.get(name)!, limit] as const);
  const caps: Array<number | null> = [null, ...new Set(seen.map(([, l]) => l))];
  return Object.entries(policy.plans).some(
    ([plan, p]) => p.requests_per_day === caller.dailyLimit && caps.some((cap) => seen.every(([c, limit]) => minuteLimit(policy, plan, c, cap) === limit)),
  );
}

function misfit(policy: RateLimitPolicy, caller: Caller): string {
  const seen = [...caller.limits].map(([name, limit]) => `${limit} (${name})`).join(", ");
  const plans = Object.entries(policy.plans)
    .map(([name, p]) => `${name} ${p.requests_per_minute}/min ${p.requests_per_day}/day`)
    .join(", ");
  const multipliers = policy.categories.map((c) => `${c.name} ×${c.multiplier}`).join(", ");
  return (
    `X-RateLimit-Limit ${seen} with X-RateLimit-Daily-Limit ${caller.dailyLimit} fit no plan of x-rate-limit-policy ` +
    `(limit = min(key rate_limit_rpm, floor(plan rpm × category multiplier)); plans: ${plans}; categories: ${multipliers})`
  );
}
