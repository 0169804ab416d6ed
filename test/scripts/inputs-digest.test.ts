// generated/inputs.json (scripts/contract/inputs-digest.ts): `npm run generate` records the hash of what it read
// (spec/, the generator's sources, redocly.yaml, its packages' versions) and of what it wrote, so check:generated and
// check:breaking tell a stale generated/ without generating again (issue 48).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatorSources, inputsDigest, RECORD, staleness } from "../../scripts/contract/inputs-digest.js";
import { GENERATED, SPEC_ROOT } from "../../scripts/lib/paths.js";
import { runScript } from "./breaking/fixtures.js";

let dir = "";
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "inputs-digest-"));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("the inputs npm run generate records", () => {
  it("the committed generated/ is fresh: its record names today's inputs and every output's hash", async () => {
    expect(await staleness(SPEC_ROOT, GENERATED)).toEqual([]);
    const record = JSON.parse(await fs.readFile(path.join(GENERATED, RECORD), "utf8"));
    expect(Object.keys(record.outputs)).toEqual(expect.arrayContaining(["openapi.yaml", "openapi.json", "schema.d.ts", "../python/src/analysis_api/models.py", "../src/client/contract.generated.ts"]));
  }, 60_000);

  it("a copy of spec/ hashes as spec/ does (paths relative to it); one edited byte makes it stale", async () => {
    const copy = path.join(dir, "spec");
    await fs.cp(path.dirname(SPEC_ROOT), copy, { recursive: true });
    expect(await inputsDigest(path.join(copy, "openapi.yaml"))).toBe(await inputsDigest(SPEC_ROOT));
    const file = path.join(copy, "components/schemas/Speaker.yaml");
    await fs.writeFile(file, (await fs.readFile(file, "utf8")) + "\n");
    expect(await staleness(path.join(copy, "openapi.yaml"), GENERATED)).toEqual([expect.stringMatching(/spec\/ \(or the generator\) changed since `npm run generate` last ran/)]);
    await fs.writeFile(path.join(copy, "components/schemas/Extra.yaml"), "type: string\n");
    await fs.rm(file);
    expect(await inputsDigest(path.join(copy, "openapi.yaml"))).not.toBe(await inputsDigest(SPEC_ROOT));
  }, 60_000);

  it("a bundle edited by hand after generation is stale, naming the file; a missing record is stale too", async () => {
    const out = path.join(dir, "generated");
    await fs.mkdir(out, { recursive: true });
    for (const f of ["openapi.yaml", RECORD]) await fs.copyFile(path.join(GENERATED, f), path.join(out, f));
    expect(await staleness(SPEC_ROOT, out, ["openapi.yaml"])).toEqual([]);
    await fs.appendFile(path.join(out, "openapi.yaml"), "# edited\n");
    expect(await staleness(SPEC_ROOT, out, ["openapi.yaml"])).toEqual([expect.stringMatching(/openapi\.yaml is not the file `npm run generate` wrote/)]);
    await fs.rm(path.join(out, RECORD));
    expect(await staleness(SPEC_ROOT, out)).toEqual([expect.stringMatching(/inputs\.json is missing/)]);
  }, 60_000);

  it("the record lists the generator's sources as esbuild finds them; a check hashes that list (one the list lost is stale)", async () => {
    const record = JSON.parse(await fs.readFile(path.join(GENERATED, RECORD), "utf8"));
    expect(record.generator).toEqual(await generatorSources());
    expect(record.generator.files).toContain("scripts/contract/generate.ts");
    const out = path.join(dir, "generated-list");
    await fs.mkdir(out, { recursive: true });
    await fs.copyFile(path.join(GENERATED, "openapi.yaml"), path.join(out, "openapi.yaml"));
    await fs.writeFile(path.join(out, RECORD), JSON.stringify(record));
    expect(await staleness(SPEC_ROOT, out, ["openapi.yaml"])).toEqual([]);
    await fs.writeFile(path.join(out, RECORD), JSON.stringify({ ...record, generator: { ...record.generator, files: record.generator.files.slice(1) } }));
    expect(await staleness(SPEC_ROOT, out, ["openapi.yaml"])).toEqual([expect.stringMatching(/changed since `npm run generate` last ran/)]);
  }, 60_000);

  it("check:generated and check:breaking pass on the committed tree", async () => {
    const gen = await runScript("check-generated.ts", []);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toMatch(/generated\/ is up to date/);
    const gate = await runScript("check-breaking.ts", []);
    expect(gate.code, gate.stderr + gate.stdout).not.toBe(2);
  }, 120_000);
});
