// spec/README.md's two tables (issue 48): the folder table lists each folder of spec/ once (it once had the
// components/headers/ and components/parameters/ rows twice, saying different things), and the `x-` extensions
// table is one table (blank lines once split it in three) listing each extension once, every one with a
// `### x-…` section among them.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";

const readme = fs.readFileSync(path.join(ROOT, "spec/README.md"), "utf8");

/** The first cell of each row of the table whose header row is `header`, up to the first line that is not a row. */
function firstCells(header: string): string[] {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`spec/README.md has no table headed "${header}"`);
  const rows: string[] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith("|")) break;
    rows.push(/^\|\s*`([^`]+)`/.exec(l)?.[1] ?? l);
  }
  return rows;
}

const once = (xs: string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);

describe("spec/README.md's tables", () => {
  it("the folder table lists each folder of spec/ once, and no other", () => {
    const rows = firstCells("| folder | rule |");
    expect(once(rows)).toEqual([]);
    const spec = path.join(ROOT, "spec");
    const folders = ["paths/", "webhooks/", ...fs.readdirSync(path.join(spec, "components")).map((d) => `components/${d}/`)];
    expect(rows.sort()).toEqual(folders.sort());
  });

  it("the x- extensions table is one table listing each extension once, each one with a section included", () => {
    const rows = firstCells("| extension | where | what |");
    expect(once(rows)).toEqual([]);
    const sections = [...readme.matchAll(/^### `(x-[a-z-]+)`/gm)].map((m) => m[1]!);
    expect(sections.length).toBeGreaterThan(5);
    expect(rows).toEqual(expect.arrayContaining(sections));
  });
});
