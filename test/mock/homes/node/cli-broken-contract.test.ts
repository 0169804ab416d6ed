// `npm run lint` and `npm run generate` as a user runs them — the package.json scripts, in child processes —
// against a broken copy of the repository (spec/ changed in one place, node_modules linked): each fails with a
// non-zero exit, names the broken file and the line of the fault, and leaves the copy's generated/ byte for byte
// as it was (no temporary files either). test/scripts/generate.test.ts checks the same faults through the
// generate() function; this covers the commands, their exit codes and what they print.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../../../scripts/lib/paths.js";

const run = promisify(execFile);
let scratch: string;

beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "cli-broken-"));
});
afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

/** A copy of what the scripts need (package.json, redocly.yaml, scripts/, src/, spec/, generated/), node_modules linked. */
async function copyRepo(name: string): Promise<string> {
  const dir = path.join(scratch, name);
  await fs.mkdir(dir);
  for (const entry of ["package.json", "redocly.yaml", "tsconfig.json", "scripts", "src", "spec", "generated"]) {
    await fs.cp(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  await fs.symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

/** Every file under generated/ (names and hashes), to show it was not touched. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(path.join(dir, "generated"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash("sha256").update(await fs.readFile(file)).digest("hex");
  }
  return out;
}

async function npm(dir: string, script: string): Promise<{ code: number; output: string }> {
  const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  try {
    const { stdout, stderr } = await run("npm", ["run", script], { cwd: dir, env, maxBuffer: 16 << 20 });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, output: `${err.stdout ?? ""}${err.stderr ?? ""}` };
  }
}

/** The lines a command reports for `file`: `file:L:C` (generate) or stylish's `file:` then `  L:C  error` (lint). */
function reportedLines(output: string, file: string): number[] {
  const lines: number[] = [];
  for (const m of output.matchAll(new RegExp(`${escape(file)}:(\\d+):\\d+`, "g"))) lines.push(Number(m[1]));
  const block = new RegExp(`^${escape(file)}:\\n((?:\\s+\\d+:\\d+\\s+error.*\\n?)+)`, "m").exec(output);
  for (const m of block?.[1]!.matchAll(/^\s+(\d+):\d+\s+error/gm) ?? []) lines.push(Number(m[1]));
  return lines;
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Breakage {
  name: string;
  file: string;
  mutate: (text: string) => string;
  /** The text of the line the fault is on, after the change (the report may point at it or the next line). */
  faultLine: string;
}

const breakages: Breakage[] = [
  { name: "a dangling $ref", file: "spec/paths/v1_speakers.yaml", mutate: (t) => t.replace("schemas/SpeakerList.yaml", "schemas/SpeakerLsit.yaml"), faultLine: "SpeakerLsit.yaml" },
  { name: "a duplicate operationId", file: "spec/paths/v1_speakers_{speaker_id}.yaml", mutate: (t) => t.replace("operationId: getSpeaker", "operationId: listSpeakers"), faultLine: "operationId: listSpeakers" },
  { name: "invalid YAML", file: "spec/paths/v1_speakers_{speaker_id}.yaml", mutate: (t) => t.replace("get:\n", "get:\n  - [unclosed\n"), faultLine: "- [unclosed" },
  { name: "an example that does not validate", file: "spec/components/examples/Speaker.yaml", mutate: (t) => t.replace("enrollment_status: enrolled", "enrollment_status: half-enrolled"), faultLine: "half-enrolled" },
];

describe("npm run lint and npm run generate on a broken contract (child processes)", () => {
  it.concurrent("both pass on an unbroken copy, and generate rewrites generated/ identically (the harness works)", async () => {
    const dir = await copyRepo("intact");
    const before = await snapshot(dir);
    const lint = await npm(dir, "lint");
    expect(lint.code, lint.output).toBe(0);
    const gen = await npm(dir, "generate");
    expect(gen.code, gen.output).toBe(0);
    expect(gen.output).toMatch(/generate: \d+ operations/);
    expect(await snapshot(dir)).toEqual(before);
  }, 120_000);

  for (const b of breakages) {
    it.concurrent(`${b.name}: both fail, naming ${b.file} and the line; generated/ untouched`, async () => {
      const dir = await copyRepo(b.name.replace(/\W+/g, "-"));
      const target = path.join(dir, b.file);
      const broken = b.mutate(await fs.readFile(target, "utf8"));
      await fs.writeFile(target, broken);
      const faultAt = broken.split("\n").findIndex((l) => l.includes(b.faultLine)) + 1;
      expect(faultAt).toBeGreaterThan(0);
      const before = await snapshot(dir);

      for (const script of ["lint", "generate"]) {
        const r = await npm(dir, script);
        expect(r.code, `npm run ${script} must fail:\n${r.output}`).not.toBe(0);
        const lines = reportedLines(r.output, b.file);
        expect(lines.length, `npm run ${script} names ${b.file} with a line:\n${r.output}`).toBeGreaterThan(0);
        expect(lines.some((l) => l === faultAt || l === faultAt + 1), `npm run ${script} points at line ${faultAt} (got ${lines}):\n${r.output}`).toBe(true);
        if (script === "generate") expect(r.output).toContain("generated/ was left as it was");
        expect(await snapshot(dir), `npm run ${script} left generated/ as it was`).toEqual(before);
      }
    }, 120_000);
  }
});
