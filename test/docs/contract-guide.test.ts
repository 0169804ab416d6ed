// docs/contract.md's walkthrough, performed as written on a copy of spec/: its files are the guide's own YAML
// blocks, then `npm run lint` passes, `npm run generate` writes the bundle, and the mock answers the requests of
// step 4 (a prefix filter included). Forgetting the 404 fails lint with the message the guide shows.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { generate } from "../../scripts/contract/generate.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { loadContract } from "../../src/mock/homes/node/contract-files.js";
import { getJson, startGateway } from "../helpers/mock.js";
import { applyToScratchSpec, guide, guideSection, specBlocks } from "../helpers/guide-walkthrough.js";

const run = promisify(execFile);
/** The tags walkthrough's YAML blocks that start with `# spec/<file>` or `# add to spec/openapi.yaml`. */
const blocks = specBlocks(guideSection("Walkthrough: adding tags"));
const KEY = { "X-API-Key": "pk_test_demo_business" };

let dir = "";
const lint = (root: string) =>
  run(process.execPath, ["scripts/contract/lint.mjs", root], { cwd: ROOT }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

beforeAll(async () => {
  dir = await applyToScratchSpec(blocks, "contract-guide-");
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("docs/contract.md: adding tags, as the guide says", () => {
  it("states the loop in order: edit, npm run lint, npm run generate, npm start, npm test", () => {
    const loop = guide.slice(guide.indexOf("## The loop"), guide.indexOf("## Walkthrough"));
    const at = ["**Edit**", "`npm run lint`", "`npm run generate`", "`npm start`", "`npm test`"].map((s) => loop.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(blocks.map((b) => b.file)).toEqual(expect.arrayContaining(["paths/v1_tags.yaml", "paths/v1_tags_{tag_id}.yaml", "components/schemas/Tag.yaml", "openapi.yaml"]));
  });

  it("lint passes, generate bundles it, and the mock serves it: create, a prefix filter, read", async () => {
    const linted = await lint(path.join(dir, "spec/openapi.yaml"));
    expect(linted.code, linted.out).toBe(0);
    const out = path.join(dir, "generated");
    await generate({ root: path.join(dir, "spec/openapi.yaml"), outDir: out, pythonDir: path.join(dir, "python"), quiet: true });
    // Step 3's claims: typed paths, the Python method with its filter, the filter in the docs.
    expect(await fs.readFile(path.join(out, "schema.d.ts"), "utf8")).toContain(`"/v1/tags": {`);
    expect(await fs.readFile(path.join(dir, "python/_operations.py"), "utf8")).toMatch(/class TagsResource\(SyncResource\):[\s\S]*?def list\(\n\s+self,\n\s+\*,\n(\s+\w+: Optional\[\w+\] = None,\n)*\s+name: Optional\[str\] = None,/);
    const bundle = JSON.parse(await fs.readFile(path.join(out, "openapi.json"), "utf8"));
    expect(bundle.paths["/v1/tags"].get.parameters.find((p: { name: string }) => p.name === "name").description).toMatch(/Filter \(`x-filter`\): items whose `name` starts with the value\./);
    const g = await startGateway({ contract: loadContract(out) });
    try {
      const created = await getJson(`${g.url}/v1/tags`, { method: "POST", headers: { ...KEY, "Content-Type": "application/json" }, body: JSON.stringify({ name: "renewal-q4" }) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.id).toMatch(/^tag_/);
      const both = await getJson(`${g.url}/v1/tags?name=renewal`, { headers: KEY });
      expect(both.body.data.map((t: { name: string }) => t.name).sort()).toEqual(["renewal", "renewal-q4"]);
      const one = await getJson(`${g.url}/v1/tags?name=renewal-`, { headers: KEY });
      expect(one.body.data.map((t: { name: string }) => t.name)).toEqual(["renewal-q4"]);
      const read = await getJson(`${g.url}/v1/tags/tag_01HZXT4G5H6J7K8L9M0N1P2Q3R`, { headers: KEY });
      expect(read.status).toBe(200);
      expect(read.body.name).toBe("renewal");
    } finally {
      await g.close();
    }
  }, 120_000);

  it("leaving out getTag's 404 fails lint with the message the guide shows", async () => {
    const file = path.join(dir, "spec/paths/v1_tags_{tag_id}.yaml");
    const doc = parse(await fs.readFile(file, "utf8"));
    delete doc.get.responses["404"];
    await fs.writeFile(file, stringify(doc));
    const linted = await lint(path.join(dir, "spec/openapi.yaml"));
    expect(linted.code).toBe(1);
    const shown = /```\nspec\/paths\/v1_tags_\{tag_id\}\.yaml:\n\s+\d+:\d+\s+(error\s+policy\/error-responses\s+.*)\n```/.exec(guide)?.[1];
    expect(shown, "the guide shows the lint error").toBeDefined();
    expect(linted.out).toContain("spec/paths/v1_tags_{tag_id}.yaml:");
    expect(linted.out.replace(/ +/g, " ")).toContain(shown!.replace(/ +/g, " "));
  }, 60_000);
});
