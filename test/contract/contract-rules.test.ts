// The audit of issue 20 (docs/contract-rules.md): every sentence of a description that states a rule is listed, with
// where the rule is machine-readable. Fails when a description states a rule the table does not list (add the rule
// to the contract and the row with `tsx scripts/lib/contract-rules-audit.ts`), when a row's verdict no longer
// matches the contract, and when a prose-only row gives no reason.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classify, statements } from "../../scripts/lib/contract-rules-audit.js";
import { REPO_ROOT } from "../../src/mock/contract.js";
import { contract } from "../mock/helpers.js";

const table = fs.readFileSync(path.join(REPO_ROOT, "docs/contract-rules.md"), "utf8");
const rows = [...table.matchAll(/^\| \d+ \| `([^`]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({ pointer: m[1]!.replace(/\\\|/g, "|"), phrase: m[2]!.trim(), where: m[3]!.trim() }));

describe("docs/contract-rules.md, the audit of the contract's rules", () => {
  const found = statements(contract.doc);

  it("lists every normative statement of every description", () => {
    const listed = new Set(rows.map((r) => `${r.pointer} ${r.phrase}`));
    const missing = found.filter((s) => !listed.has(`${s.pointer} ${s.phrase}`)).map((s) => `${s.pointer}: "${s.sentence}"`);
    expect(missing).toEqual([]);
    expect(found.length).toBeGreaterThan(150);
  });

  it("says, for each, what the contract says now", () => {
    const stale = found.map((s, i) => ({ s, row: rows[i], v: classify(contract.doc, s) })).filter(({ row, v }) => row?.where !== v.where);
    expect(stale.map(({ s, row, v }) => `${s.pointer} ${s.phrase}: table says ${row?.where}, contract says ${v.where}`)).toEqual([]);
  });

  it("gives the reason for each rule that stays prose", () => {
    expect(rows.filter((r) => r.where === "prose")).toEqual([]);
    expect(rows.filter((r) => r.where.startsWith("prose")).length).toBeLessThan(rows.length / 2);
  });

  it("finds a rule written into a description (the scan works)", () => {
    const doc = structuredClone(contract.doc);
    doc.components.schemas.Board.description += " A board with more than 50 widgets answers 409.";
    const extra = statements(doc).filter((s) => s.pointer === "#/components/schemas/Board/description" && s.phrase === "answers 409");
    expect(extra).toHaveLength(1);
  });
});
