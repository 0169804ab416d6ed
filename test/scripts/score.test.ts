// `npm run score`: redocly's agent-readiness score of the contract, read from its JSON output, with a floor, and the
// operations a change costs points, with the properties it added without a description.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { GENERATED, ROOT, SPEC_ROOT } from "../../scripts/lib/paths.js";
import { score } from "../../scripts/contract/score.js";

const run = promisify(execFile);
const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8"));
const floor = Number(/npm run score -- --min ([\d.]+)/.exec(pkg.scripts.test)?.[1]);
const tsx = path.join(ROOT, "node_modules/.bin/tsx");
const failed = (e: { code: number; stdout: string; stderr: string }) => e;

describe("npm run score", () => {
  it("npm test holds the score at or above its floor", async () => {
    const r = await score();
    expect(Number.isFinite(floor)).toBe(true);
    expect(r.agentReadiness).toBeGreaterThanOrEqual(floor);
    expect(Object.keys(r.subscores)).toEqual(expect.arrayContaining(["schemaSimplicity", "documentationQuality"]));
  }, 60_000);

  it("names the operations a change costs points and the properties it left undescribed, then fails below the floor (exit 1)", async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "score-")), "spec");
    try {
      await fs.cp(path.dirname(SPEC_ROOT), dir, { recursive: true });
      const file = path.join(dir, "components/schemas/Speaker.yaml");
      const speaker = parse(await fs.readFile(file, "utf8"));
      for (const p of ["nickname", "pronouns", "team_name", "region"]) speaker.properties[p] = { type: "string", maxLength: 40 };
      await fs.writeFile(file, stringify(speaker));
      const args = ["scripts/contract/score.ts", "--root", path.join(dir, "openapi.yaml"), "--base", path.join(GENERATED, "openapi.json"), "--min", "100.1"];
      const err = await run(tsx, args, { cwd: ROOT }).then(() => null, failed);
      expect(err?.code).toBe(1);
      expect(err?.stderr).toMatch(/below the floor 100\.1: the operations above cost the most in this change/);
      const lines = err!.stdout.split("\n");
      const hot = lines.slice(lines.findIndex((l) => /costing the most points in this change/.test(l)) + 1).filter((l) => /^ {4}\S/.test(l));
      expect(hot.length, err!.stdout).toBeGreaterThan(0);
      for (const l of hot) expect(l).toMatch(/^ {4}\w*Speakers?\w* [\d.]+ → [\d.]+ \(−[\d.]+\): .*undescribed: .*Speaker\.nickname, Speaker\.pronouns, Speaker\.team_name, Speaker\.region/);
    } finally {
      await fs.rm(path.dirname(dir), { recursive: true, force: true });
    }
  }, 120_000);

  it("the README shows no hand-kept score", async () => {
    const readme = await fs.readFile(path.join(ROOT, "README.md"), "utf8");
    expect(readme).not.toMatch(/\*\*\d+(\.\d+)?\/100\*\*/);
  });
});
