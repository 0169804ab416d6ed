// The folders say what lives in them and what they may import (issue 43, decision HL1): every folder of src/ and
// scripts/ opens with a README.md whose `May import:` line lists the folders (or files) outside it its modules may
// import, and that line is checked against every import dependency-cruiser finds, so the README cannot drift from
// the code. The size rules of the layout hold in every source and test folder: at most 25 files in a folder, and
// at most 12 loose files at the top of a folder that has folders below it.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";

const run = promisify(execFile);
const MAX_FILES = 25;
const MAX_LOOSE = 12;

/** Every folder below `top` (itself included), skipping caches. */
function folders(top: string): string[] {
  const out = [top];
  for (const e of fs.readdirSync(path.join(ROOT, top), { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== "__pycache__" && e.name !== "node_modules") out.push(...folders(`${top}/${e.name}`));
  }
  return out;
}

/** The README's `May import:` list: folder prefixes (ending in /) and single files; [] for "nothing outside". */
function mayImport(folder: string): string[] | null {
  const file = path.join(ROOT, folder, "README.md");
  if (!fs.existsSync(file)) return null;
  const line = fs.readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("May import: "));
  if (!line) return null;
  // The list ends at its full stop; what follows (which test checks it) is not a place to import from.
  return [...line.slice(0, line.indexOf(". ") < 0 ? undefined : line.indexOf(". ")).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

const CODE = ["src", "scripts"].flatMap(folders);

describe("each folder of src/ and scripts/ opens with a README", () => {
  it.each(CODE)("%s/README.md: what lives there, and a May import: line", (folder) => {
    const text = fs.readFileSync(path.join(ROOT, folder, "README.md"), "utf8");
    expect(text.startsWith(`# ${folder}/\n\n`)).toBe(true);
    expect(text.split("\n")[2]!.length).toBeGreaterThan(40);
    expect(mayImport(folder)).not.toBeNull();
  });
});

type Module = { source: string; dependencies: { resolved: string }[] };

/** The imports of `modules` that leave their folder for somewhere its README does not list, and how many were checked. */
function outsideImports(modules: Module[]): { outside: string[]; checked: number } {
  const outside: string[] = [];
  let checked = 0;
  for (const m of modules) {
    if (!/^(src|scripts)\//.test(m.source)) continue;
    const folder = path.posix.dirname(m.source);
    const allowed = mayImport(folder) ?? [];
    for (const d of m.dependencies) {
      if (!/^(src|scripts|generated)\//.test(d.resolved)) continue; // packages and Node's modules: depcruise.cjs's rules
      checked++;
      if (d.resolved.startsWith(`${folder}/`)) continue;
      if (allowed.some((a) => (a.endsWith("/") ? d.resolved.startsWith(a) : d.resolved === a))) continue;
      outside.push(`${m.source} → ${d.resolved} (${folder}/README.md: ${allowed.join(", ") || "nothing outside"})`);
    }
  }
  return { outside, checked };
}

let cruised: Promise<Module[]> | null = null;
const modules = () =>
  (cruised ??= run(path.join(ROOT, "node_modules/.bin/depcruise"), ["src", "scripts", "--config", "scripts/checks/depcruise.cjs", "--output-type", "json"], { cwd: ROOT, maxBuffer: 64 << 20 }).then((r) => JSON.parse(r.stdout).modules));

describe("the May import: lines hold", () => {
  it("every import of every module stays in its folder or in what its README lists", async () => {
    const { outside, checked } = outsideImports(await modules());
    expect(checked).toBeGreaterThan(1000);
    expect(outside).toEqual([]);
  }, 60_000);

  it("fails on an import a README does not list: a home imported by the store, a verify module by the client", async () => {
    const planted: Module[] = [
      { source: "src/mock/core/store/planted.ts", dependencies: [{ resolved: "src/mock/homes/node/gateway.ts" }, { resolved: "src/mock/core/clock/clock.ts" }] },
      { source: "src/client/planted.ts", dependencies: [{ resolved: "src/verify/runner.ts" }] },
    ];
    const { outside } = outsideImports([...(await modules()), ...planted]);
    expect(outside).toEqual([
      expect.stringContaining("src/mock/core/store/planted.ts → src/mock/homes/node/gateway.ts"),
      expect.stringContaining("src/client/planted.ts → src/verify/runner.ts"),
    ]);
  }, 60_000);
});

describe("folder sizes", () => {
  const all = ["src", "scripts", "test", "python/src", "python/tests"].flatMap(folders);
  it.each(all)(`%s: at most ${MAX_FILES} files, and at most ${MAX_LOOSE} loose ones above folders`, (folder) => {
    const entries = fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true });
    const files = entries.filter((e) => e.isFile() && e.name !== "README.md");
    const subfolders = entries.filter((e) => e.isDirectory() && e.name !== "__pycache__");
    expect(files.length).toBeLessThanOrEqual(MAX_FILES);
    if (subfolders.length) expect(files.length).toBeLessThanOrEqual(MAX_LOOSE);
  });
});
