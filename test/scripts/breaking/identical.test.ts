// Byte-identical bundles are judged "no change" without redocly diff or any rule (scripts/lib/diff/diff.ts, decision
// VG19). The answer must be the one the whole path gives for the same document in other bytes, and the
// short-cut must never hide a real change: one byte changed is judged in full.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compare } from "../../../scripts/lib/diff/diff.js";
import { GENERATED } from "../../../scripts/lib/paths.js";
import { scratchDir } from "./fixtures.js";

let dir = "";
const HEAD_YAML = path.join(GENERATED, "openapi.yaml");
beforeAll(async () => {
  dir = await scratchDir();
  process.env.CHECK_BREAKING_CACHE = "off";
});
afterAll(async () => {
  delete process.env.CHECK_BREAKING_CACHE;
  await fs.rm(dir, { recursive: true, force: true });
});

/** A copy of the current bundle with `edit` applied to its text. */
async function copy(name: string, edit: (t: string) => string = (t) => t): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, edit(await fs.readFile(HEAD_YAML, "utf8")));
  return file;
}

describe("byte-identical bundles", () => {
  it("are judged as the whole path judges the same document in other bytes: no change", { timeout: 120_000 }, async () => {
    const same = await compare({ base: HEAD_YAML, head: await copy("same.yaml") });
    // The same document as JSON: other bytes, so redocly diff and every rule run.
    const whole = await compare({ base: HEAD_YAML, head: path.join(GENERATED, "openapi.json") });
    expect(whole.changes).toEqual([]);
    expect(same.changes).toEqual(whole.changes);
    expect(same.impact).toBe(whole.impact);
    expect(same.unusedAccepted).toEqual(whole.unusedAccepted);
    expect(same.head.locate("#/info/title").line).toBe(whole.base.locate("#/info/title").line);
  });

  it("lose the short-cut when one byte differs: a changed maxLength is judged", { timeout: 120_000 }, async () => {
    const text = await fs.readFile(HEAD_YAML, "utf8");
    const at = text.indexOf("maxLength: 43");
    expect(at).toBeGreaterThan(0);
    const file = await copy("one-byte.yaml", (t) => `${t.slice(0, at)}maxLength: 44${t.slice(at + "maxLength: 43".length)}`);
    expect((await fs.stat(file)).size).toBe(Buffer.byteLength(text));
    const cmp = await compare({ base: HEAD_YAML, head: file });
    expect(cmp.redocly.length).toBeGreaterThan(0);
    expect(cmp.changes.map((c) => [c.property, c.before, c.after])).toContainEqual(["maxLength", 43, 44]);
  });
});
