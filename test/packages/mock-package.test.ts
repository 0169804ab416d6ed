// The mock package (scripts/build-packages.ts), as a user meets it: built and packed, installed with
// `npm install <tarball>` into fresh projects outside the repository, then
//   - its runtime tree: no native module, no install script, none of the optional peers;
//   - `npx avt-mock --port P` serves the README's curl flow, and `npx avt-verify` checks it;
//   - `--help` lists npm start's flags; `--state` without better-sqlite3 says what to install;
//   - a vitest project with happy-dom tests against createSimulation() with no port opened.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMockPackage, contractVersion, MOCK_BIN, packMockPackage, VERIFY_BIN } from "../../scripts/build-packages.js";
import { REPO_ROOT } from "../../src/mock/contract.js";
import { NPM_START_URL, runnableBlocks } from "../helpers/doc-blocks.js";
import { runShellBlock } from "../helpers/doc-shell.js";
import { expectLeanTree, freshProject, NPM_ENV, run } from "../helpers/packages.js";

let tmp: string;
let tarball: string;
let project: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "mock-package-"));
  const dir = await buildMockPackage(path.join(tmp, "build"));
  tarball = await packMockPackage(dir, tmp);
  project = await freshProject(tmp, "app", [tarball]);
}, 180_000);
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

const npx = (project: string, args: string[]) => run("npx", ["--no-install", ...args], { cwd: project, env: NPM_ENV, maxBuffer: 1 << 24 });

/** Starts `npx avt-mock` on a free port; resolves with its URL once it says it is ready. */
function startBin(cwd: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn("npx", ["--no-install", MOCK_BIN, "--port", "0", "--quiet"], { cwd, env: NPM_ENV, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    child.once("exit", (code) => reject(new Error(`${MOCK_BIN} exited ${code}: ${out}`)));
  });
}

describe("the mock package", () => {
  it("installs with what its code loads: no native module, no install script; version is the contract's", async () => {
    const names = await expectLeanTree(project, "@avt/mock", ["better-sqlite3", "msw", "@stoplight/prism-http", "ws", "@scarf/scarf"]);
    expect(names).toContain("swagger-ui-dist");
    const manifest = JSON.parse(await fs.readFile(path.join(project, "node_modules/@avt/mock/package.json"), "utf8")) as { version: string };
    expect(manifest.version).toBe(await contractVersion());
  });

  it("npx avt-mock serves the README's curl flow, and npx avt-verify checks it", { timeout: 120_000 }, async () => {
    const { url, child } = await startBin(project);
    try {
      const [flow] = runnableBlocks(REPO_ROOT, "README.md").filter((b) => b.lang === "sh" && b.code.includes("/v1/analyses"));
      const steps = await runShellBlock(flow!.code.split(NPM_START_URL).join(url), { cwd: project });
      expect(steps.map((s) => `${s.method} ${s.status}`)).toEqual(["POST 202", "GET 200", "GET 200", "GET 401"]);
      const verified = await npx(project, [VERIFY_BIN, "--target", url, "--api-key", "pk_test_demo_pro", "--operations", "listAnalyses"]);
      expect(verified.stdout).toMatch(/0 distinct violation/);
      expect((await fetch(`${url}/swagger-ui/swagger-ui.css`)).status).toBe(200);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
  });

  it("--help lists npm start's flags; --state without better-sqlite3 says what to install", { timeout: 60_000 }, async () => {
    const help = await npx(project, [MOCK_BIN, "--help"]);
    for (const flag of ["--port", "--host", "--state", "--fixtures", "--stateless", "--upstream", "--latency"]) expect(help.stdout).toContain(flag);
    const state = await npx(project, [MOCK_BIN, "--port", "0", "--state", path.join(tmp, "state.db")]).then(
      () => ({ stderr: "started" }),
      (e: { stderr: string }) => e,
    );
    expect(state.stderr).toContain("npm install better-sqlite3");
    await expect(fs.stat(path.join(tmp, "state.db"))).rejects.toThrow();
  });
});
