// Which Chromium the browser tests get (test/helpers/chromium.ts). The npm package's is checked here even on a
// machine that has Debian's, so the path a newcomer's machine takes is tested everywhere.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { chromiumExecutable, NPM_CHROMIUM_PACKAGE, npmPackage } from "./chromium.js";

const run = promisify(execFile);
const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "chromium-choice-"));
afterAll(() => fs.rm(scratch, { recursive: true, force: true }));
const NOWHERE = path.join(scratch, "no-such-chromium");

describe("the browser tests' Chromium", () => {
  it("is Debian's /usr/bin/chromium when that is installed", async () => {
    const installed = path.join(scratch, "chromium");
    await fs.writeFile(installed, "");
    expect(await chromiumExecutable(installed, npmPackage())).toEqual({ path: installed, source: "Debian's chromium package" });
  });

  it("else the npm package's, unpacked once into node_modules/.cache, and it runs", { timeout: 120_000 }, async () => {
    const pkg = npmPackage();
    expect(pkg, `${NPM_CHROMIUM_PACKAGE} is a devDependency`).not.toBeNull();
    const first = await chromiumExecutable(NOWHERE, pkg);
    expect(first.source).toBe(`${NPM_CHROMIUM_PACKAGE} ${pkg!.version}`);
    expect(first.path).toContain(`node_modules/.cache/avt-chromium/${pkg!.version}/chromium`);
    const { stdout } = await run(first.path, ["--version"]);
    expect(stdout).toMatch(new RegExp(`^Chromium ${pkg!.version.split(".")[0]}\\.`));
    const stat = await fs.stat(first.path);
    expect(await chromiumExecutable(NOWHERE, pkg)).toEqual(first);
    expect((await fs.stat(first.path)).mtimeMs, "not unpacked again").toBe(stat.mtimeMs);
  });

  it("fails, saying what to install, when there is neither", async () => {
    await expect(chromiumExecutable(NOWHERE, null)).rejects.toThrow(
      new RegExp(`${NOWHERE} is not installed and ${NPM_CHROMIUM_PACKAGE} is not installed \\(run npm ci\\).*apt-get install -y chromium`),
    );
  });
});
