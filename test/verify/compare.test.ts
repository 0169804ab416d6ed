// bench/verify-compare.md stays in step with the planted defects: every defect the fixture can plant has a case,
// and the table (written by scripts/verify/verify-compare.ts from the same cases) lists each with the rules the case
// expects, found, and no false alarm on the correct server. The runs themselves are defects.test.ts's.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import { CASES, DONE_WHEN } from "./fixtures/defect-cases.js";
import { DEFECTS } from "./fixtures/defective-server.js";

const doc = fs.readFileSync(path.join(REPO_ROOT, "bench/verify-compare.md"), "utf8");
const rows = new Map([...doc.matchAll(/^\| `([a-z0-9-]+)` \| [^|]+ \| (yes|\*\*no\*\*) \(([^)]*)\) \| (\d+) \| ([^|]+) \|/gm)].map((m) => [m[1]!, { found: m[2], rules: m[3]!, groups: Number(m[4]), alarms: m[5]!.trim() }]));

describe("bench/verify-compare.md", () => {
  it("every defect the fixture plants has a case in defect-cases.ts", () => {
    expect(CASES.map((c) => c.defect).sort()).toEqual([...DEFECTS].sort());
  });

  it("its table lists every case with the rules it expects: found, no false alarm", () => {
    expect([...rows.keys()].sort()).toEqual(CASES.map((c) => c.defect!).sort());
    for (const c of CASES) {
      const row = rows.get(c.defect!)!;
      const by = [...c.expected.rules.map((r) => `\`${r}\``), ...(c.expected.notImplemented ?? []).map((o) => `coverage: \`${o}\` not implemented`)];
      expect(row.rules, c.defect!).toBe(by.join(", "));
      // The Done-when bugs: one cause each (a missing operation: its coverage row, no violation).
      if (DONE_WHEN.includes(c.defect!)) expect(row.groups, c.defect!).toBe(c.expected.notImplemented ? 0 : 1);
      expect(row.found, c.defect!).toBe("yes");
      expect(row.alarms, c.defect!).toBe("none");
    }
    expect(doc).toContain(`Found: ${CASES.length} of ${CASES.length} planted defects.`);
  });

  it("the correct server's runs report nothing", () => {
    const clean = [...doc.matchAll(/^\| every operation[^|]*\| ([^|]+) \|/gm)].map((m) => m[1]!.trim());
    expect(clean).toHaveLength(4);
    expect(clean.every((c) => c === "none")).toBe(true);
  });
});
