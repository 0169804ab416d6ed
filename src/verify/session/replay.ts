// `--replay REPORT.json`: the cases that showed violations in an earlier run, sent again (like `st replay`), and
// each violation said to be fixed, still there, or not re-run (its case was skipped, e.g. rate limited). The run
// is an ordinary verify run restricted to those cases (runner.ts `only`), with the earlier run's options, so its
// generated values (same seed and count) and its multi-step cases (page walks, round trips, probes) are the same.
import fs from "node:fs";
import type { Report } from "../report.js";
import { VerifyUsageError } from "../target.js";
import type { Violation } from "../types.js";

export interface ReplayPlan {
  report: Report;
  only: Array<{ operationId: string; case: string }>;
}

/** Reads a report written by `--report`; a usage error naming the file and what is wrong with it otherwise. */
export function readReplay(file: string): ReplayPlan {
  let report: Report;
  try {
    report = JSON.parse(fs.readFileSync(file, "utf8")) as Report;
  } catch (e) {
    throw new VerifyUsageError(`--replay ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `not a JSON report (${(e as Error).message})`}`);
  }
  if (!report || typeof report.target !== "string" || !Array.isArray(report.violations)) throw new VerifyUsageError(`--replay ${file}: not a verify report (no "target" or "violations")`);
  report.violations.forEach((v, i) => {
    if (typeof v?.operationId !== "string" || typeof v.rule !== "string" || !Array.isArray(v.cases)) {
      throw new VerifyUsageError(`--replay ${file}: violations[${i}] has no operationId, rule and cases (a report of an older verify?)`);
    }
  });
  const only = report.violations.flatMap((v) => v.cases.map((c) => ({ operationId: v.operationId, case: c })));
  return { report, only };
}

export type Verdict = "fixed" | "still failing" | "not re-run" | "not reproduced: precondition missing";

/**
 * What a replay must have judged again before it may call a violation fixed: the same operation, case and rule on
 * a request of the same shape (method and query parameter names: a page walk's `cursor`, so a walk that no
 * longer reaches its second page does not count).
 */
export function runKey(operationId: string, label: string, rule: string, method: string, url: string): string {
  let names: string[] = [];
  try {
    names = [...new Set(new URL(url, "http://x.invalid").searchParams.keys())].sort();
  } catch {
    /* not a URL: no query */
  }
  return JSON.stringify([operationId, label, rule, method.toUpperCase(), names]);
}

/** Each earlier violation's verdict in the replay's report. */
export function verdicts(before: Report, after: Report): Array<{ violation: Violation; verdict: Verdict }> {
  return before.violations.map((v) => {
    const same = (n: Violation) => n.operationId === v.operationId && n.rule === v.rule;
    if (after.violations.some(same)) return { violation: v, verdict: "still failing" as const };
    const skipped = after.operations.find((o) => o.operationId === v.operationId)?.skipped.some((s) => v.cases.includes(s.case));
    if (skipped) return { violation: v, verdict: "not re-run" as const };
    const r = v.reproduction?.request;
    const judged = !r || !after.ran || v.cases.some((c) => after.ran!.includes(runKey(v.operationId, c, v.rule, r.method, r.url)));
    return { violation: v, verdict: judged ? ("fixed" as const) : ("not reproduced: precondition missing" as const) };
  });
}

export function replaySummary(list: Array<{ violation: Violation; verdict: Verdict }>): string {
  const lines = list.map(({ violation: v, verdict }) => `  ${verdict === "fixed" ? "✓ fixed" : verdict === "still failing" ? "✗ still failing" : `? ${verdict}`}  ${v.operationId} [${v.rule}] ${v.status}: ${v.message}`);
  const fixed = list.filter((x) => x.verdict === "fixed").length;
  return [`\nReplay: ${fixed} of ${list.length} violation(s) fixed.`, ...lines].join("\n");
}
