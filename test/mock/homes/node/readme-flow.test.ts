// The sh blocks of docs/frontend.md (the guide for frontend teams: "A full flow", the clock, the fault rules), each
// run as written against a mock on a free port by the guides' own runner (test/helpers/doc-shell.ts: each `curl` made
// with fetch, with the block's URLs, methods, headers and bodies; a step that does not answer what the guide says
// fails it). test/docs/guides.test.ts runs them too; this file checks what each step answers.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { DEFAULT_STEP_MS } from "../../../../src/mock/core/pipeline/services.js";
import { NPM_START_URL } from "../../../helpers/doc-blocks.js";
import { runShellBlock, type Step } from "../../../helpers/doc-shell.js";
import { getJson, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

const GUIDE = "docs/frontend.md";

/** The fenced `sh` block after the marker `<!-- The block below (name) is run by test/mock/homes/node/readme-flow.test.ts` in the guide. */
function flowBlock(name: string): string {
  const guide = fs.readFileSync(path.join(REPO_ROOT, GUIDE), "utf8");
  const at = guide.indexOf(`<!-- The block below (${name}) is run by test/mock/homes/node/readme-flow.test.ts`);
  expect(at, `${GUIDE} has the marker of the ${name} block`).toBeGreaterThan(0);
  const m = /```sh\n([\s\S]*?)\n```/.exec(guide.slice(at));
  return m![1]!;
}

/** Runs the block against the mock at `base` (in place of npm start's address). */
function runFlow(code: string, base: string): Promise<Step[]> {
  return runShellBlock(code.split(NPM_START_URL).join(base), { cwd: REPO_ROOT });
}

let g: TestGateway;
beforeAll(async () => {
  // Real timers, a fast pace: the stream of step 2 ends on its own, as it does with `npm start`.
  g = await startGateway({ stepMs: 60 });
});
afterAll(() => g.close());

/** `METHOD /path status` of each step, ids generalised. */
const shape = (steps: Step[]) => steps.map((s) => `${s.method} ${new URL(s.url).pathname.replace(/anl_\w+/, "{id}")} ${s.status}`);

describe("docs/frontend.md: a full flow", () => {
  it("works as written: create, watch the stream to completed, read transcript and signals, rename, delete, 404", async () => {
    const steps = await runFlow(flowBlock("full flow"), g.url);
    expect(shape(steps)).toEqual([
      "POST /v1/analyses 202",
      "GET /v1/analysis/{id}/stream 200",
      "GET /v1/analyses/{id}/transcript 200",
      "GET /v1/analyses/{id}/signals 200",
      "PATCH /v1/analyses/{id} 200",
      "DELETE /v1/analyses/{id} 204",
      "GET /v1/analyses/{id} 404",
    ]);
    const [created, stream, transcript, signals, renamed, , gone] = steps as [Step, Step, Step, Step, Step, Step, Step];
    expect(created.body.status).toBe("queued");
    const events = stream.events!;
    expect(events[0]!.data.status).toBe("queued");
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["transcript.segment", "signal", "alert"]));
    expect(events.at(-1)).toMatchObject({ event: "completed", data: { id: created.body.id, status: "completed" } });
    expect(transcript.body.segments.map((s: { text: string }) => s.text)).toEqual(events.filter((e) => e.event === "transcript.segment").map((e) => e.data.text));
    expect(signals.body.data.length).toBeGreaterThan(0);
    expect(signals.body.data.every((s: { score: number }) => s.score >= 0.5)).toBe(true);
    expect(renamed.body).toMatchObject({ id: created.body.id, title: "Q4 review (final)", status: "completed" });
    expect(schemaErrors("Error", gone.body)).toEqual([]);
  });
});

describe("docs/frontend.md: the controls' examples", () => {
  // The default pace of npm start (MOCK_STEP_MS 2000), on real timers beneath the simulated clock.
  let c: TestGateway;
  beforeAll(async () => {
    c = await startGateway({ stepMs: DEFAULT_STEP_MS });
  });
  afterAll(() => c.close());

  it("the clock: paused, an analysis stays queued; stepped 3 s, it is half way through processing and stays there", async () => {
    const steps = await runFlow(flowBlock("clock"), c.url);
    expect(shape(steps)).toEqual(["POST /__mock/clock 200", "POST /v1/analyses 202", "POST /__mock/clock 200", "GET /v1/analyses/{id} 200", "GET /v1/analyses/{id} 200", "POST /__mock/clock 200"]);
    const [paused, created, stepped, first, second, resumed] = steps as [Step, Step, Step, Step, Step, Step];
    expect(paused.body.paused).toBe(true);
    expect(created.body.status).toBe("queued");
    expect(Date.parse(stepped.body.now) - Date.parse(paused.body.now)).toBe(3000);
    expect(first.body.status).toBe("processing");
    expect(first.body.progress).toBeGreaterThan(0);
    expect(first.body.progress).toBeLessThan(100);
    expect(second.body).toEqual(first.body);
    expect(resumed.body.paused).toBe(false);
    await fetch(`${c.url}/__mock/reset`, { method: "POST" });
  });

  it("the faults: two 503s then a create, the analysis fails, the stream breaks after 2 events then replays", async () => {
    const steps = await runFlow(flowBlock("faults"), c.url);
    expect(shape(steps)).toEqual([
      "POST /__mock/faults 201",
      "POST /v1/analyses 503",
      "POST /v1/analyses 503",
      "POST /v1/analyses 202",
      "POST /__mock/clock 200",
      "POST /__mock/faults 201",
      "POST /__mock/clock 200",
      "GET /v1/analyses/{id} 200",
      "POST /__mock/faults 201",
      "GET /v1/analysis/{id}/stream 200",
      "GET /v1/analysis/{id}/stream 200",
      "GET /__mock/faults 200",
      "DELETE /__mock/faults 204",
      "POST /__mock/clock 200",
    ]);
    const failed = steps[7]!;
    expect(failed.body).toMatchObject({ status: "failed", error: { code: expect.any(String) } });
    const [broken, whole] = [steps[9]!.events!, steps[10]!.events!];
    expect(broken.map((e) => e.id)).toEqual(whole.slice(0, 2).map((e) => e.id));
    expect(whole.at(-1)!.event).toBe("error");
    expect(steps[11]!.body.rules).toMatchObject([{ resource: failed.body.id, scenario: "fail", used: 1 }]);
    expect((await getJson(`${c.url}/__mock/faults`)).body.rules).toEqual([]);
    await fetch(`${c.url}/__mock/reset`, { method: "POST" });
  });
});
