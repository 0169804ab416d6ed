// The rate-limit policy as the contract states it in `x-rate-limit-policy`. Nothing here holds a number:
// the plans, multipliers and path rules are read from the contract, so they are written down once.

export type PlanName = string;

export interface PlanLimits {
  requests_per_minute: number;
  requests_per_day: number;
}

export interface CategoryRule {
  name: string;
  multiplier: number;
  path_contains?: string[];
  path_prefixes?: string[];
  default?: boolean;
}

export interface RateLimitPolicy {
  scope: "workspace";
  headers: {
    limit: string;
    remaining: string;
    reset: string;
    daily_limit: string;
    daily_remaining: string;
    retry_after: string;
  };
  plans: Record<PlanName, PlanLimits>;
  categories: CategoryRule[];
  category_precedence: "first_match";
  category_rounding: "floor";
  key_limit: { field: "rate_limit_rpm"; combine: "min" };
  minute_window_seconds: number;
  minute_bucket: "per_workspace_and_category";
  daily_window: "utc_day";
  daily_bucket: "per_workspace";
  errors: {
    minute: { error: "rate_limit_exceeded"; window: "1 minute" };
    daily: { error: "daily_limit_exceeded"; window: "1 day" };
  };
}

/** Reads and sanity-checks the policy of a bundled contract. */
export function readPolicy(doc: { [key: string]: unknown }): RateLimitPolicy {
  const policy = doc["x-rate-limit-policy"] as RateLimitPolicy | undefined;
  if (!policy || typeof policy !== "object") throw new Error("contract has no x-rate-limit-policy");
  if (!policy.plans || Object.keys(policy.plans).length === 0) throw new Error("x-rate-limit-policy.plans is empty");
  if (!Array.isArray(policy.categories) || !policy.categories.some((c) => c.default)) {
    throw new Error("x-rate-limit-policy.categories needs a default category");
  }
  return policy;
}

/** Does a path prefix rule match? `/ws` matches `/ws` and `/ws/...`, not `/wsx`. */
function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : prefix + "/");
}

/**
 * The category of a path (an operation's path template, such as `/v1/analysis/{id}/stream`):
 * the first category, in the policy's order, whose rule matches; else the default.
 */
export function categoryOf(policy: RateLimitPolicy, path: string): CategoryRule {
  for (const rule of policy.categories) {
    if (rule.default) continue;
    if (rule.path_prefixes?.some((p) => underPrefix(path, p))) return rule;
    if (rule.path_contains?.some((s) => path.includes(s))) return rule;
  }
  return policy.categories.find((c) => c.default)!;
}

/** The per-minute limit of one request's bucket: min(key cap, floor(plan rpm × category multiplier)). */
export function minuteLimit(policy: RateLimitPolicy, plan: PlanName, category: CategoryRule, keyRpm?: number | null): number {
  const limits = planLimits(policy, plan);
  const planLimit = Math.max(1, Math.floor(limits.requests_per_minute * category.multiplier));
  return keyRpm == null ? planLimit : Math.min(keyRpm, planLimit);
}

/** The daily limit of a workspace: shared by all categories. */
export function dailyLimit(policy: RateLimitPolicy, plan: PlanName): number {
  return planLimits(policy, plan).requests_per_day;
}

/** The limits of one of the policy's own plans: `constructor` or `__proto__` (from Object.prototype) is no plan. */
export function planLimits(policy: RateLimitPolicy, plan: PlanName): PlanLimits {
  if (!Object.hasOwn(policy.plans, plan)) throw new Error(`unknown plan ${plan}`);
  return policy.plans[plan]!;
}

/**
 * The policy with every plan's per-minute and daily limits multiplied by `scale` (the mock's --limit-scale for
 * conformance runs, decision Y38): categories, headers and windows unchanged, so every rule still holds, with
 * room for a verifier's hundreds of requests a minute.
 */
export function scalePolicy(policy: RateLimitPolicy, scale: number): RateLimitPolicy {
  if (!Number.isInteger(scale) || scale < 1) throw new Error(`a limit scale is a whole number from 1: ${scale}`);
  const plans = Object.fromEntries(Object.entries(policy.plans).map(([name, l]) => [name, { ...l, requests_per_minute: l.requests_per_minute * scale, requests_per_day: l.requests_per_day * scale }]));
  return { ...policy, plans };
}
