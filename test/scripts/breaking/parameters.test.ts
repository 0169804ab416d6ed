// The gate matches an operation's parameters by name and place (`in`), never by their position in the list, as
// oasdiff does: a reordered list is no change; a renamed parameter is the old one removed and a new one added.
// Planted on a copy of the real bundle: the operation is the first whose inline parameters differ in their
// defaults (so a position-matching rule would see defaults "change" when the list is reordered).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import type { Json } from "../../../scripts/lib/contract.js";
import { clientFeltChanges } from "../../../scripts/lib/diff/diff-extensions.js";
import type { Bundle } from "../../../scripts/lib/diff/diff.js";
import { HTTP_METHODS } from "../../../scripts/lib/diff/diff-pointer.js";
import { realBundle, runScript, scratchDir, writeBundle } from "./fixtures.js";

const bundle = (doc: Json): Bundle => ({ file: "mem.json", version: doc.info.version, doc, locate: (pointer) => ({ file: "mem.json", pointer }) });

/** The first operation with at least two inline parameters whose schema defaults differ. */
function reorderable(doc: Json): { path: string; method: string } {
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    for (const m of HTTP_METHODS) {
      const params = (item[m]?.parameters ?? []).filter((x: Json) => !x.$ref);
      const defaults = new Set(params.map((x: Json) => JSON.stringify(x.schema?.default)));
      if (params.length >= 2 && defaults.size >= 2) return { path: p, method: m };
    }
  }
  throw new Error("fixture needs an operation with two inline parameters whose defaults differ");
}
const params = (d: Json) => {
  const { path, method } = reorderable(realBundle);
  return d.paths[path][method].parameters as Json[];
};

describe("parameters are matched by name and `in`", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("the client-felt rules see no change in a reordered parameter list", () => {
    const head = structuredClone(realBundle);
    params(head).reverse();
    expect(clientFeltChanges(bundle(realBundle), bundle(head))).toEqual([]);
  });

  it("a reordered parameter list passes the gate with no change listed (real redocly diff)", async () => {
    const base = await writeBundle(dir, "base");
    const head = await writeBundle(dir, "reordered", (d) => void params(d).reverse());
    const r = await runScript("check-breaking.ts", ["--base", base, "--head", head, "--all"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/0 major, 0 minor, 0 patch/);
  }, 120_000);

  it("a renamed parameter is the old one removed (major) and the new one added", async () => {
    const { path, method } = reorderable(realBundle);
    const old = params(realBundle).find((x) => !x.$ref)!;
    const base = await writeBundle(dir, "base2");
    const head = await writeBundle(dir, "renamed", (d) => {
      const p = params(d).find((x) => x.name === old.name && x.in === old.in)!;
      p.name = `${old.name}_renamed`;
    });
    const r = await runScript("check-breaking.ts", ["--base", base, "--head", head, "--all"]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const op = `${method.toUpperCase()} ${path}`;
    const esc = (x: string) => x.replace(/[/{}()]/g, "\\$&");
    expect(r.stdout).toMatch(new RegExp(`✖ major  ${esc(op)} ${old.in} parameter ${old.name}\\n\\s+parameter-removed: \`${old.name}\` ${old.in} parameter was removed`));
    expect(r.stdout).toMatch(new RegExp(`${esc(op)} ${old.in} parameter ${old.name}_renamed\\n\\s+.*\`${old.name}_renamed\` ${old.in} parameter`));
  }, 120_000);
});
