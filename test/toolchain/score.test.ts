// `npm run score`: redocly's agent-readiness score of the contract, read from its JSON output, with a floor.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";
import { score } from "../../scripts/score.js";

const run = promisify(execFile);
const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8"));
const floor = Number(/npm run score -- --min ([\d.]+)/.exec(pkg.scripts.test)?.[1]);

describe("npm run score", () => {
  it("npm test holds the score at or above its floor, and the README's contract section shows the score", async () => {
    const r = await score();
    expect(Number.isFinite(floor)).toBe(true);
    expect(r.agentReadiness).toBeGreaterThanOrEqual(floor);
    expect(Object.keys(r.subscores)).toEqual(expect.arrayContaining(["schemaSimplicity", "documentationQuality"]));
    const readme = await fs.readFile(path.join(ROOT, "README.md"), "utf8");
    const contract = readme.slice(readme.indexOf("## The contract"), readme.indexOf("## Layout"));
    expect(contract).toContain(`**${r.agentReadiness}/100**`);
  }, 60_000);

  it("fails below the floor it is given (exit 1)", async () => {
    const err = await run(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/score.ts", "--min", "100.1"], { cwd: ROOT }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(/below the floor 100\.1/);
  }, 60_000);
});
