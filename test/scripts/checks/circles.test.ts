// `npm run check:circles` (scripts/checks/depcruise.cjs and scripts/checks/check-python-circles.py; decisions LY4,
// HL2, HL3): no import circle in src/, scripts/ or the Python client, type-only and deferred imports included, and
// the layers of src/mock: the core imports no Node module and no engine or home, engines import no home, only
// engines load a driver, and the browser home reaches nothing of Node's. The check runs in `npm test`, passes on
// the repository as it is, and fails on a copy with each violation planted, naming the rule and the file: a check
// that could not fail would prove nothing.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../../scripts/lib/paths.js";

const run = promisify(execFile);
const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8"));
const script: string = pkg.scripts["check:circles"];

/** The script's commands, each as [program, ...args], run in `cwd` as npm would (local binaries first). */
async function check(cwd: string): Promise<{ code: number; out: string }> {
  let out = "";
  for (const command of script.split("&&").map((c) => c.trim().split(/\s+/))) {
    const [bin, ...args] = command;
    const program = bin === "python3" ? bin : path.join(ROOT, "node_modules/.bin", bin!);
    try {
      const r = await run(program, args, { cwd, maxBuffer: 16 << 20 });
      out += r.stdout + r.stderr;
    } catch (e) {
      const f = e as { code: number; stdout: string; stderr: string };
      return { code: f.code, out: out + f.stdout + f.stderr };
    }
  }
  return { code: 0, out };
}

describe("npm run check:circles", () => {
  it("runs in npm test, after the typecheck, over src/, scripts/ and the Python client", () => {
    expect(script).toMatch(/^depcruise src scripts --config scripts\/checks\/depcruise\.cjs .*&& python3 scripts\/checks\/check-python-circles\.py python\/src\/analysis_api$/);
    expect(pkg.scripts.test).toMatch(/npm run typecheck && npm run check:circles && /);
  });

  it("finds nothing in the repository", async () => {
    const r = await check(ROOT);
    expect(r.out).toContain("no dependency violations found");
    expect(r.out).toContain("no python import circles");
    expect(r.code).toBe(0);
  }, 60_000);
});

describe("each planted violation fails it, named", () => {
  let dir: string;
  let result: { code: number; out: string };
  /** Appends `text` to the copy's `file`. */
  const plant = (file: string, text: string) => fs.appendFile(path.join(dir, file), `\n${text}\n`);

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "layers-"));
    for (const part of ["src", "scripts", "python/src/analysis_api", "tsconfig.json", "generated/schema.d.ts"]) {
      await fs.cp(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    }
    await fs.cp(path.join(ROOT, "generated/openapi.json"), path.join(dir, "generated/openapi.json"));
    await fs.symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    // A Node module in the core (runtime, not a type).
    await plant("src/mock/core/store/lists.ts", 'import { readFileSync } from "node:fs";\nexport const plantedFs = readFileSync;');
    // A Node module's types in the core, other than the request's shape (node:http, node:net, node:stream).
    await plant("src/mock/core/util/ids.ts", 'import type { Worker } from "node:worker_threads";\nexport type PlantedWorker = Worker;');
    // An engine in the core.
    await plant("src/mock/core/access/keys.ts", 'import { PgState } from "../../engines/postgres/state-pg.js";\nexport const plantedPg = PgState;');
    // A home in the core.
    await plant("src/mock/core/controls/faults.ts", 'import { createGateway } from "../../homes/node/gateway.js";\nexport const plantedHome = createGateway;');
    // A home in an engine.
    await plant("src/mock/engines/sqlite/state-file.ts", 'import { nodePlatform } from "../../homes/node/platform.js";\nexport const plantedPlatform = nodePlatform;');
    // A driver outside the engines.
    await plant("src/mock/homes/node/settings.ts", 'import pg from "pg";\nexport const plantedDriver = pg;');
    // The browser's home reaching the Node home through the fetch home.
    await plant("src/mock/homes/fetch/msw-routes.ts", 'import { loadContract } from "../node/contract-files.js";\nexport const plantedLoad = loadContract;');
    // A circle in scripts/, type-only.
    await plant("scripts/lib/diff/diff-types.ts", 'import type { compare } from "./diff.js";\nexport type PlantedCompare = typeof compare;');
    result = await check(dir);
  }, 120_000);
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it.each([
    ["core-no-node", "src/mock/core/store/lists.ts", "fs"],
    ["core-no-node-types", "src/mock/core/util/ids.ts", "worker_threads"],
    ["core-no-engine", "src/mock/core/access/keys.ts", "src/mock/engines/postgres/state-pg.ts"],
    ["core-no-home", "src/mock/core/controls/faults.ts", "src/mock/homes/node/gateway.ts"],
    ["engines-no-home", "src/mock/engines/sqlite/state-file.ts", "src/mock/homes/node/platform.ts"],
    ["drivers-only-in-engines", "src/mock/homes/node/settings.ts", "node_modules/pg/"],
    ["browser-no-node-home", "src/mock/homes/browser/browser.ts", "src/mock/homes/node/contract-files.ts"],
    ["no-circular", "scripts/lib/diff/diff-types.ts", "scripts/lib/diff/diff.ts"],
  ])("%s: %s → %s", (rule, from, to) => {
    expect(result.code).not.toBe(0);
    // One violation per block: `error rule: from → to`, a circle's or a reach's path on the indented lines below.
    const blocks = result.out.split(/\n(?=\s*error )/);
    const block = blocks.find((b) => b.trimStart().startsWith(`error ${rule}: ${from} → `) && b.includes(to));
    expect(block, result.out).toBeDefined();
  });

  it("a circle in the Python client, made by an import inside a function", async () => {
    const pkgDir = path.join(dir, "python/src/analysis_api");
    await fs.appendFile(path.join(pkgDir, "_calls", "_types.py"), "\n\ndef _planted() -> None:\n    from .. import _client  # noqa: F401\n");
    const r = await run("python3", [path.join(ROOT, "scripts/checks/check-python-circles.py"), pkgDir]).then(
      () => ({ code: 0, out: "" }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/python circle: .*_types\.py.*_client\.py/);
    expect(r.out).toContain("(inside a function)");
  });
});
