// docs/limits.md's table is the caps of src/mock/core/access/limits.ts: same flags, same defaults, same answers. Break either
// and this fails, so the page cannot drift from the code (issue 22).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, LIMIT_ROWS, LimitError, limitsFromFlags, resolveLimits } from "../../../../src/mock/core/access/limits.js";
import { MAX_WEBHOOKS_PER_WORKSPACE } from "../../../../src/mock/core/events/webhooks.js";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const doc = fs.readFileSync(path.join(ROOT, "docs/limits.md"), "utf8");

/** The rows of the page's caps table: flag → [default, answer]. */
function tableRows(): Map<string, { default: number; answer: string }> {
  const rows = new Map<string, { default: number; answer: string }>();
  for (const line of doc.split("\n")) {
    const m = /^\| .+ \| `--([a-z-]+)` \| ([\d,]+) \| (.+) \|$/.exec(line);
    if (m) rows.set(m[1]!, { default: Number(m[2]!.replace(/,/g, "")), answer: m[3]! });
  }
  return rows;
}

describe("docs/limits.md", () => {
  it("lists every cap of limits.ts with its flag, default and answer, and nothing else", () => {
    const rows = tableRows();
    expect([...rows.keys()].sort()).toEqual(LIMIT_ROWS.map((r) => r.flag).sort());
    for (const r of LIMIT_ROWS) expect(rows.get(r.flag), r.flag).toEqual({ default: r.default, answer: r.answer });
  });

  it("is linked from the README's map of the docs, and holds the limits of one request", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("## Map of the docs");
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start, readme.indexOf("\n## ", start + 1))).toContain("(docs/limits.md)");
    expect(doc).toContain("## One request");
    expect(doc).toContain("JSON bodies up to 7 MiB");
  });

  it("says what the issue asks of the defaults: 10,000 records, 100 streams per workspace; the contract's 20 webhooks", () => {
    expect(DEFAULT_LIMITS.records).toBe(10_000);
    expect(DEFAULT_LIMITS.streamsPerWorkspace).toBeLessThanOrEqual(100);
    expect(DEFAULT_LIMITS.webhooks).toBe(MAX_WEBHOOKS_PER_WORKSPACE);
  });
});

describe("limit values", () => {
  it("takes whole numbers at or above each row's minimum, and refuses the rest naming the flag", () => {
    expect(resolveLimits({ records: 5 }).records).toBe(5);
    expect(limitsFromFlags({ "max-records": "7" }).records).toBe(7);
    for (const bad of ["0", "-1", "1.5", "ten", "", "99999999999999999999"]) expect(() => limitsFromFlags({ "max-records": bad }), bad).toThrow(LimitError);
    expect(() => limitsFromFlags({ "stream-idle-ms": "10" })).toThrow(/--stream-idle-ms must be a whole number of at least 1000/);
    expect(() => resolveLimits({ keys: 0 })).toThrow(/--max-keys/);
  });
});
