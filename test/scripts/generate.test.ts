// `npm run generate` and `npm run lint`: up to date, deterministic, and safe on bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generate } from "../../scripts/contract/generate.js";
import { lintRoot } from "../../scripts/lib/redocly.js";
import { renderPython } from "../../scripts/lib/python/index.js";
import { ROOT } from "../../scripts/lib/paths.js";

let scratch: string;
beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "gen-test-"));
});
afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

/** The files (not folders: generated/released/ is the release baseline) of a directory, by name. */
const read = async (dir: string) => {
  const files = (await fs.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, await fs.readFile(path.join(dir, f), "utf8")])));
};

describe("npm run generate", () => {
  it("writes exactly what is committed in generated/, and twice the same", async () => {
    const a = path.join(scratch, "a");
    const b = path.join(scratch, "b");
    const r = await generate({ outDir: a });
    await generate({ outDir: b });
    expect(r.files.map((f) => path.basename(f))).toEqual(["openapi.yaml", "openapi.json", "openapi.sim.json", "schema.d.ts", "models.py", "_operations.py", "_constants.py", "contract.generated.ts", "write.generated.ts", "invalidation.generated.ts", "schemas.generated.ts", "responses.generated.ts"]);
    expect(r.targets.map((t) => t.committed)).toEqual([
      "generated/openapi.yaml",
      "generated/openapi.json",
      "generated/openapi.sim.json",
      "generated/schema.d.ts",
      "python/src/analysis_api/models.py",
      "python/src/analysis_api/_operations.py",
      "python/src/analysis_api/_constants.py",
      "src/client/contract.generated.ts",
      "src/client/write.generated.ts",
      "src/query/invalidation.generated.ts",
      "src/zod/schemas.generated.ts",
      "src/zod/responses.generated.ts",
    ]);
    expect(r.operations).toBeGreaterThan(90);
    const [fa, fb] = [await read(a), await read(b)];
    expect(fa).toEqual(fb);
    expect(await read(path.join(a, "python"))).toEqual(await read(path.join(b, "python")));
    for (const t of r.targets) {
      const fresh = await fs.readFile(path.resolve(ROOT, t.written), "utf8");
      const committed = await fs.readFile(path.join(ROOT, t.committed), "utf8");
      expect(committed === fresh, `${t.committed} is stale: run npm run generate`).toBe(true);
    }
  }, 60_000);

  it("the lint of the real contract is clean: 0 errors and 0 warnings", async () => {
    expect(await lintRoot(path.join(ROOT, "spec/openapi.yaml"))).toEqual([]);
  }, 60_000);
});

/** Copies spec/ to a scratch folder, applies `mutate` to one file, and returns the copy's root. */
async function brokenCopy(name: string, file: string, mutate: (text: string) => string): Promise<string> {
  const dir = path.join(scratch, name);
  await fs.cp(path.join(ROOT, "spec"), dir, { recursive: true });
  const target = path.join(dir, file);
  await fs.writeFile(target, mutate(await fs.readFile(target, "utf8")));
  return path.join(dir, "openapi.yaml");
}

describe("bad input fails with file and line, and leaves generated/ as it was", () => {
  const cases: Array<[string, string, (t: string) => string, RegExp]> = [
    ["dangling-ref", "paths/v1_speakers.yaml", (t) => t.replace("schemas/SpeakerList.yaml", "schemas/SpeakerLsit.yaml"), /paths\/v1_speakers\.yaml:\d+:\d+.*SpeakerLsit/],
    ["invalid-yaml", "paths/v1_speakers_{speaker_id}.yaml", (t) => t.replace("get:\n", "get:\n  - [unclosed\n"), /v1_speakers_\{speaker_id\}\.yaml.*\d+:\d+/],
    ["duplicate-operation-id", "paths/v1_speakers_{speaker_id}.yaml", (t) => t.replace("operationId: getSpeaker", "operationId: listSpeakers"), /paths\/v1_speakers_\{speaker_id\}\.yaml:\d+:\d+.*policy\/unique-operation-id/],
    ["invalid-example", "components/examples/Speaker.yaml", (t) => t.replace("enrollment_status: enrolled", "enrollment_status: half-enrolled"), /components\/examples\/Speaker\.yaml:\d+:\d+.*no-invalid-media-type-examples/],
    ["broken-lifecycle", "components/schemas/Analysis.yaml", (t) => t.replace("getAnalysisTranscript: [completed]", "getAnalysisTranscript: [done]"), /components\/schemas\/Analysis\.yaml:\d+:\d+.*required state "done" is not a state of status.*policy\/lifecycle/],
    // 400 on every operation, one without input too: the gateway refuses a body sent to it (decision G21).
    ["missing-400", "paths/v1_billing_plan.yaml", (t) => t.replace("    '400':\n      $ref: ../components/responses/BadRequest.yaml\n", ""), /paths\/v1_billing_plan\.yaml:\d+:\d+.*must document a 400 response.*policy\/error-responses/],
    ["missing-401", "paths/v1_speakers.yaml", (t) => t.replace("    '401':\n      $ref: ../components/responses/Unauthorized.yaml\n", ""), /paths\/v1_speakers\.yaml:\d+:\d+.*must document a 401 response.*policy\/error-responses/],
    // allOf has no Python type; lint refuses it first (policy/polymorphism, decision AL1), naming the file.
    [
      "allof",
      "components/schemas/QueryUsage.yaml",
      (t) => "allOf:\n  - " + t.replace(/\n/g, "\n    ").trimEnd() + "\n  - type: object\n    description: Also an object.\n",
      /components\/schemas\/QueryUsage\.yaml:\d+:\d+.*allOf is not used in this contract.*policy\/polymorphism/,
    ],
  ];

  for (const [name, file, mutate, where] of cases) {
    it(name, async () => {
      const root = await brokenCopy(name, file, mutate);
      const out = path.join(scratch, `${name}-out`);
      await fs.mkdir(out);
      await fs.writeFile(path.join(out, "openapi.json"), "previous\n");
      await fs.writeFile(path.join(out, "schema.d.ts"), "previous\n");
      await fs.mkdir(path.join(out, "python"));
      await fs.writeFile(path.join(out, "python", "models.py"), "previous\n");
      const before = { ...(await read(out)), ...(await read(path.join(out, "python"))) };
      const err = await generate({ root, outDir: out }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err, "generate must fail").toBeInstanceOf(Error);
      const message = err!.message.replaceAll(path.dirname(root) + "/", "").replaceAll(path.relative(ROOT, path.dirname(root)) + "/", "");
      expect(message).toMatch(where);
      expect({ ...(await read(out)), ...(await read(path.join(out, "python"))) }).toEqual(before);
    }, 60_000);
  }
});

it("the Python generator refuses what has no Python type (allOf with several members), naming the schema", async () => {
  // Lint refuses allOf first (the "allof" case above); this is the generator's own guard, behind it.
  const doc = JSON.parse(await fs.readFile(path.join(ROOT, "generated/openapi.json"), "utf8"));
  doc.components.schemas.QueryUsage = { allOf: [doc.components.schemas.QueryUsage, { type: "object", description: "Also an object." }] };
  expect(() => renderPython(doc)).toThrow(/#\/components\/schemas\/QueryUsage: allOf with several members/);
});
