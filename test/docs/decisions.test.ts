// The decision records (docs/decisions/): one file per area and an index, README.md, that lists every area file
// with its sections and says, for each id prefix, which file holds its ids. Ids are unique across the files, so an
// id named anywhere is found in one place, and no section is left empty.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/lib/paths.js";
import { DECISIONS_DIR, section, tables } from "../helpers/spec-doc.js";

const INDEX = "README.md";
const index = fs.readFileSync(path.join(DECISIONS_DIR, INDEX), "utf8");
const areaFiles = fs
  .readdirSync(DECISIONS_DIR)
  .filter((f) => f !== INDEX)
  .sort();
const text = (f: string) => fs.readFileSync(path.join(DECISIONS_DIR, f), "utf8");

/** The `## ` sections of a file: heading and body, in order. */
function sections(md: string): Array<{ title: string; body: string }> {
  return md
    .split(/^(?=## )/m)
    .slice(1)
    .map((s) => ({ title: s.split("\n")[0]!.slice(3).trim(), body: s.slice(s.indexOf("\n") + 1) }));
}

/** Every id of a file: the first cell of a table row, `| D1 |` or `| **D1** |`. */
function ids(md: string): string[] {
  return [...md.matchAll(/^\| \**([A-Z]+\d+)\b/gm)].map((m) => m[1]!);
}

const prefixOf = (id: string) => /^[A-Z]+/.exec(id)![0];

/** `P1–P4, P10–P14` for the numbers of one prefix, as the index writes them. */
function ranges(prefix: string, numbers: number[]): string {
  const sorted = [...numbers].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(i === j ? `${prefix}${sorted[i]}` : `${prefix}${sorted[i]}–${prefix}${sorted[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}

/** The area list of the index: file → the sections it says the file holds. */
function areaList(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const items = section("Areas", index).split(/^- /m).slice(1);
  for (const item of items) {
    const flat = item.replace(/\s+/g, " ").trim();
    const file = /^\[[^\]]+\]\(([^)]+)\)/.exec(flat)?.[1];
    const listed = /Sections: (.*)\.$/.exec(flat)?.[1];
    if (!file || !listed) throw new Error(`an area line without a link or a section list: ${flat}`);
    out.set(file, listed.split("; "));
  }
  return out;
}

/** The index's table "id prefix → file": prefix → { ids as written, file }. */
function prefixTable(): Map<string, { ids: string; file: string }> {
  const rows = tables(section("Id prefix → file", index))[0] ?? [];
  return new Map(rows.map((r) => [r["Prefix"]!.replace(/`/g, ""), { ids: r["Ids"]!, file: /\(([^)]+)\)/.exec(r["File"]!)?.[1] ?? r["File"]! }]));
}

describe("decision records: docs/decisions/", () => {
  it("has the eleven area files the index lists, and the index lists every file with the sections it holds", () => {
    const listed = areaList();
    expect([...listed.keys()].sort()).toEqual(areaFiles);
    expect(areaFiles).toEqual(["bench.md", "client.md", "contract.md", "edge.md", "layout.md", "lifecycles.md", "proxy.md", "python.md", "sandbox.md", "store.md", "verify.md"]);
    for (const f of areaFiles) expect({ f, sections: sections(text(f)).map((s) => s.title) }).toEqual({ f, sections: listed.get(f) });
  });

  it("no `## ` section is empty", () => {
    for (const f of areaFiles) {
      expect(sections(text(f)).length, f).toBeGreaterThan(0);
      for (const s of sections(text(f))) expect({ f, section: s.title, empty: s.body.trim() === "" }).toEqual({ f, section: s.title, empty: false });
    }
  });

  it("every id is unique across the files", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const f of areaFiles)
      for (const id of ids(text(f))) {
        if (seen.has(id)) twice.push(`${id} in ${seen.get(id)} and ${f}`);
        seen.set(id, f);
      }
    expect(seen.size).toBeGreaterThan(250);
    expect(twice).toEqual([]);
  });

  it("each id prefix of the index points at the one file holding its ids, with their ranges", () => {
    const table = prefixTable();
    const found = new Map<string, { files: Set<string>; numbers: number[] }>();
    for (const f of areaFiles)
      for (const id of ids(text(f))) {
        const p = prefixOf(id);
        const e = found.get(p) ?? { files: new Set<string>(), numbers: [] };
        e.files.add(f);
        e.numbers.push(Number(id.slice(p.length)));
        found.set(p, e);
      }
    expect([...table.keys()].sort()).toEqual([...found.keys()].sort());
    for (const [p, { files, numbers }] of found)
      expect({ p, files: [...files], ids: ranges(p, numbers) }).toEqual({ p, files: [table.get(p)!.file], ids: table.get(p)!.ids });
  });

  it("nothing in the repository still points at the single file the records were split from", () => {
    const old = ["decisions", "md"].join(".");
    const skip = new Set(["node_modules", ".git", "_build", "__pycache__", ".venv", ".mypy_cache", "released", "dist"]);
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (skip.has(e.name)) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|mjs|js|md|ya?ml|py|json)$|^run$/.test(e.name) && fs.readFileSync(p, "utf8").includes(old)) hits.push(path.relative(ROOT, p));
      }
    };
    for (const d of ["spec", "src", "scripts", "test", "docs", "python", "bench", ".ci", "generated"]) if (fs.existsSync(path.join(ROOT, d))) walk(path.join(ROOT, d));
    if (fs.readFileSync(path.join(ROOT, "README.md"), "utf8").includes(old)) hits.push("README.md");
    expect(hits).toEqual([]);
  });
});
