// A YAML bundle is read from its JSON twin only when the generation record beside it (inputs.json) lists both
// files with their bytes of today (scripts/lib/diff/diff.ts, decision VG19): one generation wrote both from one
// document. An edited YAML, or a twin the record does not vouch for, is read from the YAML itself.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadBundle } from "../../../../scripts/lib/diff/diff.js";
import { release } from "../../../../scripts/contract/release.js";
import { GENERATED } from "../../../../scripts/lib/paths.js";
import { scratchDir } from "../../breaking/fixtures.js";

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
let dir = "";
const yamlFile = () => path.join(dir, "openapi.yaml");

beforeAll(async () => {
  dir = await scratchDir();
  for (const f of ["openapi.yaml", "openapi.json", "inputs.json"]) await fs.copyFile(path.join(GENERATED, f), path.join(dir, f));
  process.env.CHECK_BREAKING_CACHE = "off";
});
afterAll(async () => {
  delete process.env.CHECK_BREAKING_CACHE;
  await fs.rm(dir, { recursive: true, force: true });
});

/** Rewrites one file of the copy; `record` also writes its hash into inputs.json. */
async function rewrite(name: string, edit: (text: string) => string, record: boolean): Promise<void> {
  const text = edit(await fs.readFile(path.join(dir, name), "utf8"));
  await fs.writeFile(path.join(dir, name), text);
  if (!record) return;
  const rec = JSON.parse(await fs.readFile(path.join(dir, "inputs.json"), "utf8"));
  rec.outputs[name] = sha(text);
  await fs.writeFile(path.join(dir, "inputs.json"), JSON.stringify(rec));
}

describe("a YAML bundle's JSON twin", () => {
  it("is the same document as the YAML, and is what the gate reads when the record vouches for both", async () => {
    const yamlDoc = parse(await fs.readFile(yamlFile(), "utf8"), { maxAliasCount: -1, uniqueKeys: false });
    expect((await loadBundle(yamlFile(), "current bundle")).doc).toEqual(yamlDoc);
    // A twin edited and recorded is read (proof that the twin, not the YAML, was used)…
    await rewrite("openapi.json", (t) => t.replace(/"title": "[^"]*"/, '"title": "From the twin"'), true);
    expect((await loadBundle(yamlFile(), "current bundle")).doc.info.title).toBe("From the twin");
  });

  it("is not read when the record does not list its bytes", async () => {
    await rewrite("openapi.json", (t) => t.replace(/"title": "[^"]*"/, '"title": "Unrecorded"'), false);
    expect((await loadBundle(yamlFile(), "current bundle")).doc.info.title).not.toBe("Unrecorded");
  });

  it("is not read when the YAML changed by one byte since the record: the YAML's change is judged", async () => {
    await rewrite("openapi.json", (t) => t, true);
    await rewrite("openapi.yaml", (t) => t.replace(/^(  title: .*)$/m, "$1!"), false);
    const bundle = await loadBundle(yamlFile(), "current bundle");
    expect(bundle.doc.info.title).toMatch(/!$/);
    expect(bundle.locate("#/info/title").line).toBeGreaterThan(1);
  });

  it("is written by `npm run release` beside the baseline, and is then what the gate reads", { timeout: 60_000 }, async () => {
    const out = path.join(dir, "released");
    const r = await release({ initial: true, head: path.join(GENERATED, "openapi.yaml"), dir: out, date: "2026-11-28" });
    expect(r.problems).toEqual([]);
    const baseline = path.join(out, "openapi.yaml");
    const record = JSON.parse(await fs.readFile(path.join(out, "inputs.json"), "utf8"));
    expect(record.outputs["openapi.yaml"]).toBe(sha(await fs.readFile(baseline)));
    expect(record.outputs["openapi.json"]).toBe(sha(await fs.readFile(path.join(out, "openapi.json"))));
    const yamlDoc = parse(await fs.readFile(baseline, "utf8"), { maxAliasCount: -1, uniqueKeys: false });
    expect((await loadBundle(baseline, "baseline")).doc).toEqual(yamlDoc);
  });

  it("of the committed baseline is vouched for by its record (else the gate parses the YAML: right, but slower)", async () => {
    const released = path.join(GENERATED, "released");
    const record = JSON.parse(await fs.readFile(path.join(released, "inputs.json"), "utf8"));
    expect(record.outputs["openapi.yaml"]).toBe(sha(await fs.readFile(path.join(released, "openapi.yaml"))));
    expect(record.outputs["openapi.json"]).toBe(sha(await fs.readFile(path.join(released, "openapi.json"))));
  });
});
