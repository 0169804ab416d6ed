// `npm run check:circles` (scripts/checks/depcruise.cjs, decisions LY1-LY4): no import circle in src/, type-only imports
// included. The check runs in `npm test`, passes on src/ as it is, and fails on a copy of src/ with a circle planted
// in src/mock and one in src/client, naming both: a check that could not fail would prove nothing.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";

const run = promisify(execFile);
const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8"));
const script: string = pkg.scripts["check:circles"];

/** Runs the script's own command line in `cwd` (the repository, or a copy of its src/, tsconfig.json and config). */
async function check(cwd: string): Promise<{ code: number; out: string }> {
  const [bin, ...args] = script.split(/\s+/);
  try {
    const r = await run(path.join(ROOT, "node_modules/.bin", bin!), args, { cwd });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const f = e as { code: number; stdout: string; stderr: string };
    return { code: f.code, out: f.stdout + f.stderr };
  }
}

describe("npm run check:circles", () => {
  it("runs in npm test, after the typecheck", () => {
    expect(script).toMatch(/^depcruise src --config scripts\/depcruise\.cjs/);
    expect(pkg.scripts.test).toMatch(/npm run typecheck && npm run check:circles && /);
  });

  it("finds no circle in src/", async () => {
    const r = await check(ROOT);
    expect(r.out).toContain("no dependency violations found");
    expect(r.code).toBe(0);
  }, 60_000);

  it("fails on a planted circle, a type-only back-arrow included, naming its files", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "circles-"));
    try {
      await fs.cp(path.join(ROOT, "src"), path.join(dir, "src"), { recursive: true });
      await fs.cp(path.join(ROOT, "scripts/checks/depcruise.cjs"), path.join(dir, "scripts/checks/depcruise.cjs"));
      await fs.cp(path.join(ROOT, "tsconfig.json"), path.join(dir, "tsconfig.json"));
      // The options below the gateway, pointing back up at it (the circle issue 25 removed), type only.
      await fs.appendFile(path.join(dir, "src/mock/core/pipeline/options.ts"), '\nimport type { Gateway } from "./gateway.js";\nexport type Planted = Gateway;\n');
      // The client's internals pointing back up at the client.
      await fs.appendFile(path.join(dir, "src/client/internals.ts"), '\nimport type { ApiClient } from "./client.js";\nexport type Planted = ApiClient;\n');
      const r = await check(dir);
      expect(r.code).not.toBe(0);
      expect(r.out).toContain("no-circular");
      expect(r.out).toMatch(/src\/mock\/options\.ts[\s\S]*src\/mock\/gateway\.ts/);
      expect(r.out).toMatch(/src\/client\/internals\.ts[\s\S]*src\/client\/client\.ts/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The rows of a diagram of docs/architecture.md: the files (or folders, ending in /) each row names, top first; null for "every other file". */
function rows(doc: string, heading: string): (string[] | null)[] {
  const block = new RegExp(`## ${heading}\\n[\\s\\S]*?\`\`\`text\\n([\\s\\S]*?)\`\`\``).exec(doc)![1]!;
  return block
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith(" "))
    .map((line) => (line.startsWith("every other file") ? null : line.split(/\s{2,}/)[0]!.split(" ")));
}

describe("docs/architecture.md: the layers", () => {
  it.each(["src/mock", "src/client"])("no file of %s imports from a row above its own", async (folder) => {
    const doc = await fs.readFile(path.join(ROOT, "docs/architecture.md"), "utf8");
    const layers = rows(doc, folder);
    expect(layers.at(-1)).toBeNull();
    const { stdout } = await run(path.join(ROOT, "node_modules/.bin/depcruise"), [folder, "--config", "scripts/checks/depcruise.cjs", "--output-type", "json"], { cwd: ROOT, maxBuffer: 64 << 20 });
    const modules: { source: string; dependencies: { resolved: string }[] }[] = JSON.parse(stdout).modules;
    const inFolder = (f: string) => f.startsWith(`${folder}/`);
    const rowOf = (f: string) => {
      const rel = f.slice(folder.length + 1);
      const i = layers.findIndex((names) => names?.some((n) => (n.endsWith("/") ? rel.startsWith(n) : rel === n)));
      return i === -1 ? layers.length - 1 : i;
    };
    for (const names of layers) for (const n of names ?? []) expect(modules.some((m) => inFolder(m.source) && m.source.slice(folder.length + 1).startsWith(n)), n).toBe(true);
    const upward = modules
      .filter((m) => inFolder(m.source))
      .flatMap((m) => m.dependencies.filter((d) => inFolder(d.resolved) && rowOf(d.resolved) < rowOf(m.source)).map((d) => `${m.source} → ${d.resolved}`));
    expect(upward).toEqual([]);
  }, 60_000);
});
