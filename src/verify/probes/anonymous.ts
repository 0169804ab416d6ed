// The anonymous budget (decision Y41): requests the service counts without a workspace — no credentials, a
// credential in the URL where none is taken, a key it never issued or revoked, a request it cannot parse — are
// counted per client address on the smallest plan (decision M2), 30 a minute in the general category on the mock.
// A run spends that allowance once: each category gets at most one window of it (`--anonymous-budget` overrides),
// so these checks never wait for a window to refill. What does not fit is reported as skipped, with the reason.
// The budget goes first to the cases that prove most per request: the unknown key (one per tag), then each
// operation's request without credentials, then `?token=` on a REST path, each taken round robin over the tags so
// every part of the API is tried before any part twice.
import { minuteLimit, type RateLimitPolicy } from "../../contract/policy.js";
import type { RequestCase } from "../requests/cases.js";
import type { Operation } from "../types.js";

/** Does the service count this case in the anonymous bucket (no workspace)? */
export function isAnonymous(c: Pick<RequestCase, "operation" | "credentials" | "probe">): boolean {
  return !c.operation.public && (c.credentials !== "header" || c.probe?.kind === "revoked-key");
}

/** One window of the smallest plan's per-minute limit in `category` (the policy as the run reads it, scaled). */
export function anonymousAllowance(policy: RateLimitPolicy, category: Operation["category"]): number {
  const smallest = Object.entries(policy.plans).sort(([, a], [, b]) => a.requests_per_minute - b.requests_per_minute)[0]![0];
  return minuteLimit(policy, smallest, category);
}

export class AnonymousBudget {
  private readonly spent = new Map<string, number>();

  /** `override`: requests per category a run (--anonymous-budget); else one window of the allowance. */
  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly override?: number,
  ) {}

  limit(category: Operation["category"]): number {
    return this.override ?? anonymousAllowance(this.policy, category);
  }

  /** Takes one request of `op`'s category; false when its budget is spent. */
  take(op: Operation): boolean {
    const n = this.spent.get(op.category.name) ?? 0;
    if (n >= this.limit(op.category)) return false;
    this.spent.set(op.category.name, n + 1);
    return true;
  }

  /** Sets `n` requests of `category` aside for cases sent later that must not go without (malformed, revoked key). */
  reserve(category: Operation["category"], n: number): void {
    this.spent.set(category.name, (this.spent.get(category.name) ?? 0) + n);
  }

  /** Why a case was not sent once its category's budget is spent. */
  reason(op: Operation): string {
    return `the anonymous budget is spent (${this.limit(op.category)} requests without a workspace in the ${op.category.name} category a run, --anonymous-budget): not sent, so the run never waits for the anonymous limit`;
  }
}

const PRIORITY: Partial<Record<RequestCase["kind"], number>> = { "unknown-key": 0, "no-credentials": 1, "token-query": 2 };

/**
 * The order anonymous cases draw on the budget: by kind (PRIORITY), then round robin over the operations' first
 * tags (the first operation of each tag, then the second of each…), then as built.
 */
export function byPriority(cases: RequestCase[]): RequestCase[] {
  const rank = new Map<RequestCase, [number, number, number]>();
  const seen = new Map<string, number>();
  cases.forEach((c, i) => {
    const kind = PRIORITY[c.kind] ?? 3;
    const tag = `${kind}\0${c.operation.op.tags?.[0] ?? ""}`;
    const round = seen.get(tag) ?? 0;
    seen.set(tag, round + 1);
    rank.set(c, [kind, round, i]);
  });
  return [...cases].sort((a, b) => {
    const [x, y] = [rank.get(a)!, rank.get(b)!];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}
