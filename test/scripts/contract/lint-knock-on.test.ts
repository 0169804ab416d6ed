// `npm run lint` reports a broken `$ref` once, at the `$ref`: what can't be checked because of it (the operation that
// holds it, operations reaching a component that holds it, files only they use, the file the `$ref` meant) is skipped,
// and the output says how many problems were skipped. Each case plants one wrong-folder `$ref` in a copy of spec/,
// beside one unrelated mistake that must still be reported.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, SPEC_ROOT } from "../../../scripts/lib/paths.js";
import { problemLines } from "../../../scripts/lib/redocly.js";

const run = promisify(execFile);
const SPEC = path.dirname(SPEC_ROOT);
const dirs: string[] = [];

/** Copies spec/, applies each [file, from, to] text edit (each must match), lints the copy. */
async function lintWith(edits: [string, string, string][]): Promise<{ code: number; out: string; lines: string[] }> {
  const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "lint-knock-on-")), "spec");
  dirs.push(path.dirname(dir));
  await fs.cp(SPEC, dir, { recursive: true });
  for (const [file, from, to] of edits) {
    const text = await fs.readFile(path.join(dir, file), "utf8");
    if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
    await fs.writeFile(path.join(dir, file), text.replace(from, to));
  }
  const res = await run(process.execPath, ["scripts/contract/lint.mjs", path.join(dir, "openapi.yaml"), "--max-problems=1000"], { cwd: ROOT }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
  if (process.env.SHOW_LINT) console.log(res.out);
  return { ...res, lines: problemLines(res.out) };
}

afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

// An unrelated mistake in another file: it must survive the skipping.
const UNRELATED: [string, string, string] = ["paths/v1_skills.yaml", "operationId: listSkills", "operationId: ListSkills"];

describe("npm run lint reports a broken $ref once, at the $ref", () => {
  it("a path file's wrong-folder $ref: one error at the $ref, naming the file that exists; its knock-ons skipped", async () => {
    const { code, out, lines } = await lintWith([
      ["paths/v1_speakers.yaml", "$ref: ../components/schemas/SpeakerList.yaml", "$ref: ../schemas/SpeakerList.yaml"],
      UNRELATED,
    ]);
    expect(code).not.toBe(0);
    const speakers = lines.filter((l) => l.includes("paths/v1_speakers.yaml"));
    expect(speakers).toHaveLength(1);
    expect(speakers[0]).toMatch(/no-unresolved-refs/);
    expect(speakers[0]).toMatch(/did you mean `\.\.\/components\/schemas\/SpeakerList\.yaml`/);
    // Not "SpeakerList.yaml is referenced by nothing", nor the list shape, links or examples of listSpeakers.
    expect(lines.filter((l) => /SpeakerList\.yaml:/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.includes("paths/v1_skills.yaml"))).toHaveLength(1);
    expect(lines).toHaveLength(2);
    expect(out).toMatch(/Validation failed with 2 errors/);
    expect(out).toMatch(/Skipped \d+ problems? that follow from the \$ref that does not resolve/);
  }, 120_000);

  it("a component's broken $ref: one error in the component; no 'listed item ()' or examples in operations using it", async () => {
    const { lines } = await lintWith([["components/schemas/SpeakerList.yaml", "$ref: Speaker.yaml", "$ref: schemas/Speaker.yaml"], UNRELATED]);
    expect(lines.filter((l) => /no-unresolved-refs/.test(l))).toHaveLength(1);
    // At the $ref's own line, wherever the file puts it.
    const refLine = (await fs.readFile(path.join(ROOT, "spec/components/schemas/SpeakerList.yaml"), "utf8")).split("\n").findIndex((l) => l.includes("$ref: Speaker.yaml")) + 1;
    expect(lines.find((l) => /no-unresolved-refs/.test(l))).toMatch(new RegExp(`components/schemas/SpeakerList\\.yaml:${refLine}:`));
    expect(lines.join("\n")).not.toMatch(/listed item \(\)/);
    expect(lines.filter((l) => l.includes("paths/v1_speakers.yaml"))).toEqual([]);
    expect(lines).toHaveLength(2);
  }, 120_000);
});
