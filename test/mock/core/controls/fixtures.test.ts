// Fixtures (`--fixtures FILE`, decision MC6): a team's own records loaded into named workspaces and checked
// against the contract.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { parseFixtures } from "../../../../src/mock/core/controls/fixtures.js";
import { yamlFixtures } from "../../../../src/mock/homes/node/fixtures-yaml.js";
import { refuseMockSettings } from "../../../../src/mock/proxy/upstream.js";
import { readModel } from "../../../../src/mock/core/store/model.js";
import { call, contract, policy, startGateway, type TestGateway } from "../../../helpers/mock.js";

const EXAMPLE = path.join(REPO_ROOT, "docs/mock-fixtures.example.yaml");
const KEY = "pk_test_dashboard_demo";
/** Where the example's analysis `status` is: line and column. */
const STATUS_AT = `${fs.readFileSync(EXAMPLE, "utf8").split("\n").findIndex((l) => l.includes("status: processing")) + 1}:17`;

describe("--fixtures: the example file, loaded", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ fixtures: EXAMPLE });
  });
  afterAll(() => g.close());

  it("its workspace holds exactly its records, reached with its key; other workspaces are seeded as ever", async () => {
    const agents = await call(g.url, "GET", "/v1/agents", { key: KEY });
    expect(agents.body.data.map((a: { id: string }) => a.id)).toEqual(["agt_01DashAgent0000000000001"]);
    expect((await call(g.url, "GET", "/v1/analyses", { key: KEY })).body.data).toMatchObject([{ id: "anl_01DashCall00000000000001", status: "processing", progress: 40 }]);
    expect((await call(g.url, "GET", "/v1/runs/run_01DashRun000000000000001", { key: KEY })).body.agent_id).toBe("agt_01DashAgent0000000000001");
    expect((await call(g.url, "GET", "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0", { key: KEY })).status).toBe(404);
    expect((await call(g.url, "GET", "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0")).status).toBe(200);
  });

  it("reset brings the file's records back", async () => {
    expect((await call(g.url, "PATCH", "/v1/analyses/anl_01DashCall00000000000001", { key: KEY, body: { title: "renamed" } })).body.title).toBe("renamed");
    await fetch(`${g.url}/__mock/reset`, { method: "POST" });
    expect((await call(g.url, "GET", "/v1/analyses/anl_01DashCall00000000000001", { key: KEY })).body.title).toBe("Renewal call with Acme");
  });
});

describe("--fixtures: a completed analysis without content (issue 31)", () => {
  const example = fs.readFileSync(EXAMPLE, "utf8");
  const completed = example
    .replace("status: processing", "status: completed")
    .replace("progress: 40", "progress: 100")
    .replace("duration_seconds: 1204.8", "duration_seconds: null")
    .replace("completed_at: null", "completed_at: 2026-11-20T10:30:00Z");
  let g: TestGateway;
  let file: string;
  beforeAll(async () => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "fixtures-completed-")), "fx.yaml");
    fs.writeFileSync(file, completed);
    g = await startGateway({ fixtures: file });
  });
  afterAll(async () => {
    await g.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it("answers its transcript and speakers, derived as processing would have made them, not 404", async () => {
    const id = "anl_01DashCall00000000000001";
    const t = await call(g.url, "GET", `/v1/analyses/${id}/transcript`, { key: KEY });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body.segments.length).toBeGreaterThan(0);
    const a = (await call(g.url, "GET", `/v1/analyses/${id}`, { key: KEY })).body;
    expect(a.duration_seconds).toBe(t.body.duration_seconds);
    expect(a.title).toBe("Renewal call with Acme");
    const speakers = await call(g.url, "GET", `/v1/analyses/${id}/speakers`, { key: KEY });
    expect(speakers.body.data.map((s: { label: string }) => s.label)).toEqual([...new Set(t.body.segments.map((s: { speaker_label: string }) => s.speaker_label))]);
  });
});

describe("--fixtures: an invalid file names the record and the rule", () => {
  const model = readModel(contract);
  const example = fs.readFileSync(EXAMPLE, "utf8");
  const parse = (text: string, file = "fx.yaml") => {
    try {
      parseFixtures(text, file, contract, model, policy, yamlFixtures.read);
      return "loaded";
    } catch (e) {
      return (e as Error).message;
    }
  };

  it("loads the example as it is", () => expect(parse(example)).toBe("loaded"));

  it.each([
    ["a value its schema refuses", example.replace("status: processing", "status: exploded"), new RegExp(`^fx\\.yaml:${STATUS_AT}: workspaces\\.ws_Dashboard01\\.Analysis\\.0\\.status: analysis anl_01DashCall00000000000001: must be equal to one of the allowed values \\(schema Analysis, rule "enum"\\)$`)],
    ["a missing required field", example.replace("        title: Renewal call with Acme\n", ""), /Analysis\.0: analysis anl_01DashCall00000000000001: must have required property 'title' \(schema Analysis, rule "required"\)/],
    ["an id naming nothing in the workspace (x-references)", example.replace("agent_id: agt_01DashAgent0000000000001", "agent_id: agt_01Elsewhere000000000000001"), /^fx\.yaml:\d+:\d+: workspaces\.ws_Dashboard01\.Run\.0\.agent_id: run run_01DashRun000000000000001: no agent agt_01Elsewhere000000000000001 in workspace ws_Dashboard01 \(x-references: Agent\)$/],
    ["an id in an array naming nothing", example.replace("analysis_ids: [anl_01DashCall00000000000001]", "analysis_ids: [anl_01Missing00000000000001]"), /Run\.0\.input\.analysis_ids\.0: run run_01DashRun000000000000001: no analysis anl_01Missing00000000000001/],
    ["a collection the contract does not have", example.replace("    Run:\n", "    Runs:\n"), /workspaces\.ws_Dashboard01\.Runs: not a collection of the contract/],
    ["a workspace id of the wrong shape", example.replaceAll("ws_Dashboard01:", "dashboard:"), /workspaces\.dashboard: a workspace id must match/],
    ["a key of the wrong shape", example.replace("key: pk_test_dashboard_demo", "key: sk_dashboard"), /^fx\.yaml:5:\d+: keys\.0\.key: must be a string starting with/],
    ["not YAML", "workspaces: [\n  {", /^fx\.yaml:\d+:\d+: not JSON or YAML/],
    ["completed without completed_at (x-lifecycle set)", example.replace("status: processing", "status: completed").replace("progress: 40", "progress: 100"), /^fx\.yaml:\d+:\d+: workspaces\.ws_Dashboard01\.Analysis\.0\.completed_at: analysis anl_01DashCall00000000000001: must be set in state completed \(x-lifecycle set: completed\)$/],
    ["completed with a progress other than its lifecycle's", example.replace("status: processing", "status: completed"), /Analysis\.0\.progress: analysis anl_01DashCall00000000000001: must be 100 in state completed \(x-lifecycle set: completed\)$/],
    ["completed_at while still processing", example.replace("completed_at: null", "completed_at: 2026-11-20T10:30:00Z"), /Analysis\.0\.completed_at: analysis anl_01DashCall00000000000001: must be null in state processing, which comes before completed \(x-lifecycle set: completed\)$/],
  ])("%s", (_what, text, message) => expect(parse(text)).toMatch(message));

  it("an id twice in one collection", () => {
    const twice = example.replace("    Analysis:\n", "    Analysis:\n" + /    Analysis:\n([\s\S]*?)    Run:/.exec(example)![1]);
    expect(parse(twice)).toMatch(/Analysis\.1\.id: analysis anl_01DashCall00000000000001 appears twice/);
  });

  it("docs/frontend.md shows the messages the loader gives (the example with its status, its agent_id, then its completed_at, broken; the story with a speaker's segment_count)", () => {
    const story = fs.readFileSync(path.join(REPO_ROOT, "docs/mock-fixtures.story.example.yaml"), "utf8");
    const guide = fs.readFileSync(path.join(REPO_ROOT, "docs/frontend.md"), "utf8");
    const shown = [...guide.matchAll(/^Bad fixtures file \(MOCK_FIXTURES \/ --fixtures\): (.*)$/gm)].map((m) => m[1]);
    expect(shown).toEqual([
      parse(example.replace("status: processing", "status: exploded"), "fixtures.yaml"),
      parse(example.replace("agent_id: agt_01DashAgent0000000000001", "agent_id: agt_01Elsewhere000000000000001"), "fixtures.yaml"),
      parse(example.replace("status: processing", "status: completed").replace("progress: 40", "progress: 100"), "fixtures.yaml"),
      parse(story.replace("segment_count: 2", "segment_count: 118"), "story.yaml"),
    ]);
  });

  it("has no meaning in proxy mode: refused beside --upstream", () => {
    expect(() => refuseMockSettings({ fixtures: "fx.yaml" })).toThrow("--fixtures (MOCK_FIXTURES) has no meaning then");
  });

  it("reads JSON too", () => {
    const json = JSON.stringify({ workspaces: { ws_Dashboard01: { Agent: [{ id: "agt_01x" }] } } });
    expect(parse(json, "fx.json")).toMatch(/^fx\.json:1:\d+: workspaces\.ws_Dashboard01\.Agent\.0: agent agt_01x: must have required property/);
  });
});
