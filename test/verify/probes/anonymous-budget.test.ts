// The anonymous budget (src/verify/probes/anonymous.ts, decision Y41): the requests the service counts without a
// workspace draw on one window of the anonymous limit per category a run, so a run never waits for that limit to
// refill; what does not fit is skipped with the reason, and the budget goes round the tags before any tag twice.
import { describe, expect, it } from "vitest";
import { AnonymousBudget, anonymousAllowance, byPriority } from "../../../src/verify/probes/anonymous.js";
import type { RequestCase } from "../../../src/verify/requests/cases.js";
import { contract } from "../../helpers/mock.js";
import { listed, useMock } from "../helpers.js";

const mock = useMock();
const OPERATIONS = "/v1/analyses*,/v1/speakers*,/v1/webhooks*,/v1/keys*,/v1/use-cases*";
const SPENT = /^the anonymous budget is spent \(\d+ requests without a workspace in the \w+ category a run/;

describe("the anonymous budget", () => {
  it("a read-only run sends one window of anonymous requests per category, waits for none, and says what it left out", async () => {
    // The 429 probe (Y53) and the input probe (Y56) are other budgets: left out, so this one is judged alone.
    const report = await mock.run(mock.g.url, { operations: OPERATIONS, rateLimitBudget: 0, inputBudget: 0 });
    expect(report.violations, listed(report)).toEqual([]);
    expect(mock.sleeps).toEqual([]);
    expect(report.waited_ms).toBe(0);
    const skipped = report.operations.flatMap((o) => o.skipped.filter((s) => SPENT.test(s.reason)));
    expect(skipped.length).toBeGreaterThan(0);
    // Only anonymous cases are left out, and the request without credentials of every tag was sent before any
    // `?token=` case.
    for (const s of skipped) expect(["no-credentials", "token-query"]).toContain(s.case);
    if (skipped.some((s) => s.case === "no-credentials")) expect(report.checks.find((c) => c.rule === "token-query-rejected")!.run).toBe(0);
    const sentNoCredentials = report.operations.filter((o) => !o.skipped.some((s) => s.case === "no-credentials")).length;
    expect(sentNoCredentials).toBeGreaterThanOrEqual(5);
    expect(report.checks.find((c) => c.rule === "auth-enforced")!.run).toBeGreaterThan(0);
  }, 300_000);

  it("a larger --anonymous-budget sends them all and waits the windows out (what the default saves)", async () => {
    const report = await mock.run(mock.g.url, { operations: OPERATIONS, anonymousBudget: 1000 });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.operations.flatMap((o) => o.skipped.filter((s) => SPENT.test(s.reason)))).toEqual([]);
    expect(report.waited_ms).toBeGreaterThan(0);
  }, 300_000);

  it("the allowance is the smallest plan's per-minute limit in the category; the budget counts down and can be set aside", () => {
    const general = contract.policy.categories.find((c) => c.name === "general")!;
    const query = contract.policy.categories.find((c) => c.name === "query")!;
    expect(anonymousAllowance(contract.policy, general)).toBe(30);
    expect(anonymousAllowance(contract.policy, query)).toBe(15);
    const budget = new AnonymousBudget(contract.policy);
    budget.reserve(general, 28);
    const op = contract.router.routes.find((r) => r.category.name === "general")!;
    expect([budget.take(op), budget.take(op), budget.take(op)]).toEqual([true, true, false]);
    expect(new AnonymousBudget(contract.policy, 2).limit(general)).toBe(2);
  });

  it("orders by kind (unknown key, no credentials, ?token=), then round robin over the tags", () => {
    const op = (tag: string) => ({ op: { tags: [tag] } }) as unknown as RequestCase["operation"];
    const c = (kind: RequestCase["kind"], tag: string) => ({ kind, operation: op(tag), label: `${kind} ${tag}` }) as RequestCase;
    const cases = [c("token-query", "A"), c("no-credentials", "A"), c("no-credentials", "A"), c("no-credentials", "B"), c("unknown-key", "B")];
    cases[2]!.label = "no-credentials A2";
    expect(byPriority(cases).map((x) => x.label)).toEqual(["unknown-key B", "no-credentials A", "no-credentials B", "no-credentials A2", "token-query A"]);
  });
});
