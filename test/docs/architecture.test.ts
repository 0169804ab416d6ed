// docs/architecture.md's diagrams hold (decisions LY4, HL1): in the src/mock and src/client diagrams, every row names
// files or folders that exist, and no file imports from a row above its own (type-only imports included), as
// dependency-cruiser sees the imports. A row out of order, or a name that no longer exists, fails.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";

const run = promisify(execFile);

/** The rows of a diagram of docs/architecture.md: the files (or folders, ending in /) each row names, top first; null for "every other file". */
function rows(doc: string, heading: string): (string[] | null)[] {
  const block = new RegExp(`## ${heading}\\n[\\s\\S]*?\`\`\`text\\n([\\s\\S]*?)\`\`\``).exec(doc)![1]!;
  return block
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith(" "))
    .map((line) => (line.startsWith("every other file") ? null : line.split(/\s{2,}/)[0]!.split(" ")));
}

type Module = { source: string; dependencies: { resolved: string }[] };

/** The imports that go up the diagram `layers` of `folder`. */
function upward(folder: string, layers: (string[] | null)[], modules: Module[]): string[] {
  const inFolder = (f: string) => f.startsWith(`${folder}/`);
  const rowOf = (f: string) => {
    const rel = f.slice(folder.length + 1);
    const i = layers.findIndex((names) => names?.some((n) => (n.endsWith("/") ? rel.startsWith(n) : rel === n)));
    return i === -1 ? layers.length - 1 : i;
  };
  return modules
    .filter((m) => inFolder(m.source))
    .flatMap((m) => m.dependencies.filter((d) => inFolder(d.resolved) && rowOf(d.resolved) < rowOf(m.source)).map((d) => `${m.source} → ${d.resolved}`));
}

async function cruise(folder: string): Promise<Module[]> {
  const { stdout } = await run(path.join(ROOT, "node_modules/.bin/depcruise"), [folder, "--config", "scripts/checks/depcruise.cjs", "--output-type", "json"], { cwd: ROOT, maxBuffer: 64 << 20 });
  return JSON.parse(stdout).modules;
}

describe("docs/architecture.md: the layers", () => {
  it.each(["src/mock", "src/client"])("no file of %s imports from a row above its own", async (folder) => {
    const doc = await fs.readFile(path.join(ROOT, "docs/architecture.md"), "utf8");
    const layers = rows(doc, folder);
    expect(layers.at(-1)).toBeNull();
    const modules = await cruise(folder);
    for (const names of layers) for (const n of names ?? []) expect(modules.some((m) => m.source.startsWith(`${folder}/${n}`)), n).toBe(true);
    expect(upward(folder, layers, modules)).toEqual([]);
  }, 60_000);

  it("fails on a diagram whose rows are out of order", async () => {
    const doc = await fs.readFile(path.join(ROOT, "docs/architecture.md"), "utf8");
    const layers = rows(doc, "src/mock");
    // The core's folders above the homes that import them.
    const swapped = [layers[0]!, ["core/"], ...layers.slice(1, -1), null];
    const found = upward("src/mock", swapped, await cruise("src/mock"));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => / → src\/mock\/core\//.test(f))).toBe(true);
  }, 60_000);
});
