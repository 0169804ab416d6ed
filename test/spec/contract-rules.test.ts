// The audit of issue 20 (docs/contract-rules.md): every sentence of a description that states a rule is listed, with
// where the rule is machine-readable. Fails when a description states a rule the table does not list (add the rule
// to the contract and the row with `tsx scripts/lib/docs/contract-rules-audit.ts`), when a row's verdict no longer
// matches the contract, and when a prose-only row gives no reason.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classify, statements } from "../../scripts/lib/docs/contract-rules-audit.js";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import { contract } from "../helpers/mock.js";

const table = fs.readFileSync(path.join(REPO_ROOT, "docs/contract-rules.md"), "utf8");
const rows = [...table.matchAll(/^\| \d+ \| `([^`]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({ pointer: m[1]!.replace(/\\\|/g, "|"), phrase: m[2]!.trim(), where: m[3]!.trim() }));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The statements whose row gives another verdict than the contract does now. Rows are matched by statement (pointer
 * and phrase, in order among equals), never by index: one new rule is one missing row, not a shift of every row after it.
 */
function staleRows(doc: Json) {
  const byStatement = new Map<string, Array<(typeof rows)[number]>>();
  for (const r of rows) byStatement.set(`${r.pointer} ${r.phrase}`, [...(byStatement.get(`${r.pointer} ${r.phrase}`) ?? []), r]);
  return statements(doc)
    .map((s) => ({ s, row: byStatement.get(`${s.pointer} ${s.phrase}`)?.shift(), v: classify(doc, s) }))
    .filter(({ row, v }) => row !== undefined && row.where !== v.where);
}

describe("docs/contract-rules.md, the audit of the contract's rules", () => {
  const found = statements(contract.doc);

  it("lists every normative statement of every description", () => {
    const listed = new Set(rows.map((r) => `${r.pointer} ${r.phrase}`));
    const missing = found.filter((s) => !listed.has(`${s.pointer} ${s.phrase}`)).map((s) => `${s.pointer}: "${s.sentence}"`);
    expect(missing).toEqual([]);
    expect(found.length).toBeGreaterThan(150);
  });

  it("says, for each, what the contract says now", () => {
    const stale = staleRows(contract.doc);
    expect(stale.map(({ s, row, v }) => `${s.pointer} ${s.phrase}: table says ${row?.where}, contract says ${v.where}`)).toEqual([]);
  });

  it("gives the reason for each rule that stays prose", () => {
    expect(rows.filter((r) => r.where === "prose")).toEqual([]);
    expect(rows.filter((r) => r.where.startsWith("prose")).length).toBeLessThan(rows.length / 2);
  });

  it("one new rule is one missing row: the other rows still match", () => {
    const doc = structuredClone(contract.doc);
    const [p, item] = Object.entries<Json>(doc.paths)[0]!;
    const method = Object.keys(item).find((m) => item[m]?.operationId)!;
    item[method].description = `A new first rule: it answers 429 when the moon is full. ${item[method].description ?? ""}`;
    const listed = new Set(rows.map((r) => `${r.pointer} ${r.phrase}`));
    const pointer = `#/paths/${p.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}/description`;
    expect(statements(doc).filter((s) => !listed.has(`${s.pointer} ${s.phrase}`)).map((s) => s.pointer)).toEqual([pointer]);
    expect(staleRows(doc)).toEqual([]);
  });

  it("reads the keyword that states a bound, not any keyword on the field", () => {
    const doc = structuredClone(contract.doc);
    doc.components.schemas.AuditProbe = {
      type: "object",
      properties: {
        title: { type: "string", maxLength: 200, description: "A title of at most 10 words." },
        name: { type: "string", maxLength: 200, description: "A name of at most 200 characters." },
        tags: { type: "array", maxItems: 5, items: { type: "string", maxLength: 20 }, description: "At most 5 tags." },
        note: { type: "string", maxLength: 500, description: "A note of at most 300 characters." },
      },
    };
    const verdict = (prop: string) => {
      const s = statements(doc).find((x) => x.pointer === `#/components/schemas/AuditProbe/properties/${prop}/description`)!;
      return classify(doc, s).where;
    };
    expect(verdict("title")).toMatch(/^prose: no keyword counts words/);
    expect(verdict("name")).toBe("`maxLength` (JSON Schema bound)");
    expect(verdict("tags")).toBe("`maxItems` (JSON Schema bound)");
    expect(verdict("note")).toMatch(/^prose: "at most 300 characters" has no `maxLength: 300`/);
  });

  it("finds a rule written into a description (the scan works)", () => {
    const doc = structuredClone(contract.doc);
    doc.components.schemas.Board.description += " A board with more than 50 widgets answers 409.";
    const extra = statements(doc).filter((s) => s.pointer === "#/components/schemas/Board/description" && s.phrase === "answers 409");
    expect(extra).toHaveLength(1);
  });
});
