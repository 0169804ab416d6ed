// `npm run check:breaking:eval` (scripts/contract/check-breaking-eval.ts): each held-out case is applied to a copy of
// the bundle and judged by the real gate; a case the contract has no target for counts nowhere. The figure itself
// (the share of breaking changes judged major) is the script's output, not a test's: this checks how it is counted.
import { describe, expect, it } from "vitest";
import { evaluate, summary } from "../../../scripts/contract/check-breaking-eval.js";
import { CASES, type EvalCase } from "../../../scripts/contract/breaking-eval-cases.js";

const pick = (id: string) => CASES.find((c) => c.id === id)!;

describe("the held-out breaking-change evaluation", () => {
  it("has at least 40 breaking and 10 non-breaking cases, each named by an oasdiff check", () => {
    expect(CASES.filter((c) => c.breaking).length).toBeGreaterThanOrEqual(40);
    expect(CASES.filter((c) => !c.breaking).length).toBeGreaterThanOrEqual(10);
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
    // docs/contract.md and decision VG18 give these counts.
    expect([CASES.filter((c) => c.breaking).length, CASES.filter((c) => !c.breaking).length]).toEqual([50, 15]);
  });

  it("judges a case with the real gate, and leaves a case without a target out of the figures", async () => {
    const missing: EvalCase = { id: "no-target", breaking: true, apply: () => { throw new Error("the contract has no such thing"); } };
    const vs = await evaluate([pick("response-header-became-optional"), pick("new-optional-request-property"), missing]);
    expect(vs.map((v) => [v.id, v.applicable, v.major])).toEqual([
      ["response-header-became-optional", true, true],
      ["new-optional-request-property", true, false],
      ["no-target", false, false],
    ]);
    expect(vs[0]!.rules).toContain("major contract/response-header-optional");
    expect(summary(vs)).toEqual({ breaking: 1, caught: 1, share: 1, nonBreaking: 1, falseMajors: 0, notApplicable: 1 });
    expect(summary([{ ...vs[0]!, major: false }, { ...vs[1]!, major: true }])).toMatchObject({ share: 0, falseMajors: 1 });
  }, 120_000);
});
