// docs/contract.md's nested walkthrough (comments under an analysis: filters, an Idempotency-Key on the create, an
// `open → resolved` x-lifecycle, an x-references to a speaker), performed as written on a copy of spec/: its
// files are the section's own YAML blocks and its requests the section's own `sh` block. Then, with no code and no
// list edited: lint passes, generate writes the bundle and both clients, the mock serves the requests of step 4,
// verify finds nothing wrong with the mock's comments (the nested list's parent found by itself), the fuzz suite's
// requests for the new operations get only answers the contract allows, tsc type-checks the TypeScript client over
// the new types and mypy --strict the Python client, whose new methods also run against the mock. And the change
// breaks nothing else: over the whole contract (the new paths placed beside their parent, as an author would), a
// diarized analysis keeps its speakers, verify (writes, then stateful with a second workspace) finds no violation,
// and the fuzz suite's answers are all ones the contract allows.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../scripts/contract/generate.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { loadContract, type Contract } from "../../src/mock/homes/node/contract-files.js";
import { verify } from "../../src/verify/index.js";
import { runShellBlock } from "../helpers/doc-shell.js";
import { applyToScratchSpec, fencedBlocks, guideSection, specBlocks } from "../helpers/guide-walkthrough.js";
import { call, ManualClock, startGateway, startStateful, STEP_MS, type TestGateway } from "../helpers/mock.js";
import { fuzzGateway } from "../helpers/robustness/fuzz.js";
import { BUSINESS_KEY, OTHER_WORKSPACE_KEY } from "../verify/fixtures/keys.js";
import { answeredByGateway } from "../../src/verify/select.js";

const run = promisify(execFile);
const section = guideSection("Walkthrough: a nested resource");
const blocks = specBlocks(section);
const requests = fencedBlocks(section, "sh")[0]!;
const NESTED = "/v1/analyses/{analysis_id}/comments";
const DAY = 86_400_000;

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
    const linted = await exec(process.execPath, ["scripts/contract/lint.mjs", path.join(dir, "spec/openapi.yaml")]);
    expect(linted.code, linted.out).toBe(0);
    expect(linted.out).toContain("Woohoo! Your API description is valid."); // 0 errors, 0 warnings
  }, 60_000);

  it("npm run generate writes the bundle, the TypeScript types and the Python client with the new operations", async () => {
    await fs.cp(path.join(ROOT, "python/src/analysis_api"), path.join(dir, "py/analysis_api"), { recursive: true });
    const out = path.join(dir, "generated");
    await generate({ root: path.join(dir, "spec/openapi.yaml"), outDir: out, pythonDir: path.join(dir, "py/analysis_api"), quiet: true });
    expect(await fs.readFile(path.join(out, "schema.d.ts"), "utf8")).toContain(`"${NESTED}": {`);
    expect(await fs.readFile(path.join(dir, "py/analysis_api/_operations.py"), "utf8")).toMatch(/class CommentsResource\(SyncResource\):[\s\S]*?def list\(\n\s+self,\n\s+analysis_id: str,/);
    // The state table rendered where the schema's description holds the marker.
    const bundle = JSON.parse(await fs.readFile(path.join(out, "openapi.json"), "utf8"));
    expect(bundle.components.schemas.Comment.description).toMatch(/\| `open` \| `resolved` \| `updateComment` sets `status` \|/);
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

  it("verify --allow-writes --stateful --operations '*Comment*' against that mock: no violation, and every check of the new operations ran", async () => {
    const clock = new ManualClock();
    const vg = await startGateway({ contract, clock, webhookDelayMs: 1_000_000_000 });
    try {
      const report = await verify({
        target: vg.url,
        apiKey: BUSINESS_KEY,
        apiKeyB: OTHER_WORKSPACE_KEY,
        contract,
        operations: "*Comment*",
        allowWrites: true,
        stateful: true,
        rps: null,
        maxWaitSeconds: 3600,
        clock: { now: () => clock.now(), sleep: async (ms) => void clock.advance(ms) },
      });
      const listed = report.violations.map((v) => `${v.operationId} [${v.rule}] ${v.status}: ${v.message}`).join("\n");
      expect(report.violations, listed).toEqual([]);
      // The speaker the create references is made (and deleted) as a prerequisite: createSpeaker and deleteSpeaker.
      expect(report.operations.map((o) => o.operationId)).toEqual(expect.arrayContaining(["createComment", "deleteComment", "getComment", "listComments", "updateComment"]));
      const ran = Object.fromEntries(report.checks.map((c) => [c.rule, c.run]));
      for (const rule of ["crud-roundtrip", "list-filters", "references-enforced", "lifecycle-enforced", "idempotency-honoured", "tenancy"]) expect(ran[rule], rule).toBeGreaterThan(0);
      const skipped = report.operations.flatMap((o) => o.skipped.map((s) => `${o.operationId} ${s.case}: ${s.reason}`));
      expect(skipped, "nothing skipped: the nested list's parent was found").toEqual([]);
    } finally {
      await vg.close();
    }
  }, 240_000);

  it("the fuzz suite's requests for the new operations get only answers the contract allows", async () => {
    const report = await fuzzGateway({ runs: 250, seed: 20261127, contract, only: (op) => op.template.startsWith(NESTED) });
    expect(report.runs).toBe(250);
    for (const status of [200, 201, 204, 404, 422]) expect(report.byStatus[status], `status ${status}`).toBeGreaterThan(0);
  }, 240_000);

  it("the copy places the new paths beside their parent, as an author would: before the analysis's speakers", async () => {
    const urls = Object.keys(parse(await fs.readFile(path.join(dir, "spec/openapi.yaml"), "utf8")).paths);
    expect(urls.indexOf(NESTED)).toBe(urls.indexOf("/v1/analyses/{analysis_id}") + 1);
    expect(urls.indexOf(NESTED)).toBeLessThan(urls.indexOf("/v1/analyses/{analysis_id}/speakers"));
  });

  // The whole contract after the change, not only the new paths: a new resource must break no other (issue 48).
  it("the whole contract, the mock: a diarized analysis still has its speakers, in the transcript and in its list", async () => {
    const sg = await startStateful({ contract });
    try {
      const made = await call(sg.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio", features: ["transcription", "diarization"], use_case_id: "uc_01HZX1C4S8E2K6M0P3R7T9V5W1" } });
      expect(made.status, JSON.stringify(made.body)).toBe(202);
      sg.clock.advance(STEP_MS * 3);
      const transcript = (await call(sg.url, "GET", `/v1/analyses/${made.body.id}/transcript`)).body;
      const labels = [...new Set(transcript.segments.map((s: { speaker_label: string }) => s.speaker_label))].sort();
      expect(labels.length).toBeGreaterThan(1);
      expect(transcript.speakers.map((s: { label: string }) => s.label).sort()).toEqual(labels);
      const listed = (await call(sg.url, "GET", `/v1/analyses/${made.body.id}/speakers`)).body;
      expect(listed.data.map((s: { label: string }) => s.label).sort()).toEqual(labels);
    } finally {
      await sg.close();
    }
  }, 60_000);

  it("the whole contract, verify: --allow-writes, then --stateful --api-key-b, against one mock: no violation", async () => {
    const clock = new ManualClock();
    const vg = await startGateway({ contract, clock, webhookDelayMs: 1_000_000_000 });
    try {
      for (const o of [{ allowWrites: true }, { allowWrites: true, stateful: true, apiKeyB: OTHER_WORKSPACE_KEY }]) {
        clock.set(Math.floor(clock.now() / DAY) * DAY + DAY + 12 * 3_600_000 + 30_000); // a day of its own: no limit carries over
        const report = await verify({ target: vg.url, apiKey: BUSINESS_KEY, contract, rps: null, maxWaitSeconds: 3600, ...o, clock: { now: () => clock.now(), sleep: async (ms) => void clock.advance(ms) } });
        const listed = report.violations.map((v) => `${v.operationId} [${v.rule}] ${v.status}: ${v.message}`).join("\n");
        expect(report.violations, listed).toEqual([]);
        // Every operation a backend answers: the gateway's own (x-answered-by: gateway) are out of scope unless named.
        expect(report.operations.length).toBe(contract.router.routes.filter((r) => !answeredByGateway(r)).length);
      }
    } finally {
      await vg.close();
    }
  }, 300_000);

  it("the whole contract, the fuzz suite: every operation's answers are ones the contract allows", async () => {
    const report = await fuzzGateway({ runs: 600, seed: 20261128, contract });
    expect(report.runs).toBe(600);
    expect(Object.keys(report.byStatus).length).toBeGreaterThan(3);
  }, 240_000);

  it("the TypeScript client type-checks over the new types (tsc), and a wrong filter value is a type error", async () => {
    await fs.cp(path.join(ROOT, "src/client"), path.join(dir, "src/client"), { recursive: true });
    for (const f of ["contract.generated.ts", "write.generated.ts"]) await fs.copyFile(path.join(dir, "generated/client", f), path.join(dir, "src/client", f));
    await fs.symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    await fs.writeFile(
      path.join(dir, "use.ts"),
      `import { createClient } from "./src/client/index.js";
import type { components } from "./generated/schema.js";
const api = createClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "pk_test_demo_business" });
export async function comments(): Promise<components["schemas"]["Comment"][]> {
  const made = await api.POST("/v1/analyses/{analysis_id}/comments", { params: { path: { analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" } }, body: { body: "Check the date.", speaker_id: "spk_01HZX3T6Q2M8V4R1K7P9N5C3B2" } });
  const id: string | undefined = made.data?.id;
  await api.PATCH("/v1/analyses/{analysis_id}/comments/{comment_id}", { params: { path: { analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", comment_id: id ?? "" } }, body: { status: "resolved" } });
  // @ts-expect-error: the status filter is an enum of the lifecycle's states
  await api.GET("/v1/analyses/{analysis_id}/comments", { params: { path: { analysis_id: "anl_x" }, query: { status: "closed" } } });
  const page = await api.GET("/v1/analyses/{analysis_id}/comments", { params: { path: { analysis_id: "anl_x" }, query: { status: "open", created_after: "2026-11-20T00:00:00Z" } } });
  return page.data?.data ?? [];
}
`,
    );
    const tsconfig = JSON.parse(await fs.readFile(path.join(ROOT, "tsconfig.json"), "utf8"));
    await fs.writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: tsconfig.compilerOptions, include: ["use.ts", "src/client", "generated/schema.d.ts"] }));
    const tsc = await exec(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", path.join(dir, "tsconfig.json")], dir);
    expect(tsc.code, tsc.out).toBe(0);
  }, 180_000);

  it("the Python client type-checks (mypy --strict) with its new methods (a TypedDict body, as every create; answers with attributes), and they work against the mock", async () => {
    const script = `from analysis_api import Client
import sys

client = Client(sys.argv[1], api_key="pk_test_demo_business")
made = client.comments.create("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", {"body": "From Python.", "speaker_id": "spk_01HZX3T6Q2M8V4R1K7P9N5C3B2"}, idempotency_key="py-1")
resolved = client.comments.update("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", made.id, {"status": "resolved"})
ids = [c.id for c in client.comments.list("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", status="resolved")]
print(made.status, resolved.status, made.id in ids)
`;
    await fs.writeFile(path.join(dir, "py/use_comments.py"), script);
    const mypy = await exec("mypy", ["--strict", "--python-version", "3.9", "--no-incremental", "--cache-dir", path.join(dir, ".mypy"), "use_comments.py"], path.join(dir, "py"));
    expect(mypy.code, mypy.out).toBe(0);
    g ??= await startGateway({ contract });
    const py = await exec("python3", ["use_comments.py", g.url], path.join(dir, "py"));
    expect(py.out.trim()).toBe("open resolved True");
  }, 240_000);
});
