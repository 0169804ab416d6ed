// Each rate-limit category's 429, driven to on purpose (probes/limits.ts, decision Y53): with the run's credential
// and without, within --rate-limit-budget; a bucket the budget cannot reach is "not reached", with why, in the JSON
// report and the terminal table.
import { describe, expect, it } from "vitest";
import { summaryTable, type Report } from "../../../src/verify/index.js";
import { LIMITED_KEY, listed, useMock } from "../helpers.js";

const mock = useMock();
const row = (r: Report, category: string, bucket: string) => r.rate_limits.find((x) => x.category === category && x.bucket === bucket);

describe("every rate-limit category's 429", () => {
  it("the anonymous bucket is reached; the business key's 300 a minute is over the budget: not reached, and said so", async () => {
    const report = await mock.run(mock.g.url, { operations: "listAnalyses" });
    expect(report.violations, listed(report)).toEqual([]);
    expect(row(report, "general", "anonymous")).toMatchObject({ reached: true, reason: null });
    expect(row(report, "general", "caller")).toMatchObject({ reached: false, requests: 1 });
    expect(row(report, "general", "caller")!.reason).toMatch(/X-RateLimit-Remaining was \d+: \d+ more requests would reach the 429, over the budget of 40/);
    // One row per category and bucket, in the policy's order; a category no selected operation is in is not reached.
    expect(report.rate_limits.map((r) => `${r.category} ${r.bucket}`)).toEqual(["upload caller", "upload anonymous", "streaming caller", "streaming anonymous", "query caller", "query anonymous", "general caller", "general anonymous"]);
    expect(row(report, "query", "caller")).toMatchObject({ reached: false, requests: 0, reason: "no selected operation is in the category" });
    const table = summaryTable(report);
    expect(table).toContain("rate limits: 1 of 8 buckets' 429 reached");
    expect(table).toMatch(/✓ general \(anonymous\): 429 reached after \d+ request\(s\)/);
    expect(table).toMatch(/- general \(caller\): not reached: X-RateLimit-Remaining was/);
    expect(table).toContain("- query (anonymous): not reached: no selected operation is in the category");
  });

  it("a key capped at 10 a minute reaches its own 429 too; --rate-limit-budget 0 tries none", async () => {
    const limited = await mock.run(mock.g.url, { operations: "listAnalyses", apiKey: LIMITED_KEY });
    expect(limited.violations, listed(limited)).toEqual([]);
    expect(row(limited, "general", "caller")).toMatchObject({ reached: true });
    const none = await mock.run(mock.g.url, { operations: "listAnalyses", rateLimitBudget: 0 });
    expect(none.rate_limits.every((r) => !r.reached && r.requests === 0 && r.reason === "not tried (--rate-limit-budget 0)")).toBe(true);
  });
});
