// The gate keeps what it worked out for the same bytes (scripts/lib/diff/diff-cache.ts, decision VG17): the parsed
// YAML bundles and redocly diff's report, by the hash of what each is made from. The report is the same with the
// cache off, on a first run and on a second; an entry is what the gate reads (planting one changes the report);
// other bytes are another key.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript, schema, scratchDir, writeBundle, realBundle } from "../../breaking/fixtures.js";

let dir = "";
let cache = "";
beforeAll(async () => {
  dir = await scratchDir();
  cache = path.join(dir, "cache");
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const gate = async (args: string[], env: string) => {
  process.env.CHECK_BREAKING_CACHE = env;
  try {
    return await runScript("check-breaking.ts", args);
  } finally {
    delete process.env.CHECK_BREAKING_CACHE;
  }
};
const entries = async () => (await fs.readdir(cache).catch(() => [] as string[])).sort();

describe("the gate's cache", () => {
  it("gives the same report off, on a first run and on a second; keeps redocly's report", async () => {
    const off = await gate([], "off");
    expect(off.code, off.stderr).not.toBe(2);
    expect(await entries()).toEqual([]);
    const first = await gate([], cache);
    // Both YAML bundles are read from their JSON twins (an inputs.json beside each vouches for both, VG19): not kept.
    expect(await entries()).toEqual([expect.stringMatching(/^redocly-diff-[0-9a-f]{64}\.json$/)]);
    const second = await gate([], cache);
    expect(first.stdout).toBe(off.stdout);
    expect(second.stdout).toBe(off.stdout);
    expect(second.code).toBe(off.code);
  }, 180_000);

  it("reads an entry instead of working it out, and other bytes are another key", async () => {
    const fieldOf = (d: typeof realBundle) => Object.entries<{ properties?: Record<string, unknown> }>(d.components.schemas).find(([, s]) => s.properties?.name)![0];
    const base = await writeBundle(dir, "base");
    const head = await writeBundle(dir, "head", (d) => void (schema(d, fieldOf(d)).properties.name.maxLength = 3));
    const before = await entries();
    const found = await gate(["--base", base, "--head", head, "--all"], cache);
    expect(found.stdout).toMatch(/maxLength/);
    const planted = (await entries()).filter((e) => !before.includes(e));
    expect(planted).toEqual([expect.stringMatching(/^redocly-diff-/)]); // JSON bundles are not kept: JSON.parse is fast
    for (const e of planted) await fs.writeFile(path.join(cache, e), "[]");
    const read = await gate(["--base", base, "--head", head, "--all"], cache);
    expect(read.stdout).not.toMatch(/maxLength/);
    const other = await writeBundle(dir, "other", (d) => void (schema(d, fieldOf(d)).properties.name.maxLength = 4));
    const again = await gate(["--base", base, "--head", other, "--all"], cache);
    expect(again.stdout).toMatch(/maxLength/);
  }, 180_000);
});
