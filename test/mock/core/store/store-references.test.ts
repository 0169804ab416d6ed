// Ids in a create body that name other resources (`x-references`, decision LC12), over real HTTP: an id the
// workspace does not have answers 400, one in a state the contract does not allow answers 409 (both as the
// contract's descriptions say), and an allowed one creates. Read from the contract, not written per resource.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, contract, schemaErrors, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
beforeAll(async () => {
  g = await startStateful();
});
afterAll(async () => {
  await g.close();
});

const example = (name: string) => structuredClone(contract.doc.components.examples[name].value);
/** The seeded analyses, as every demo workspace starts: one completed, one processing, one failed. */
const COMPLETED = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const PROCESSING = "anl_01HZXB3M5N7P9Q1R3S5T7V9W2X";
const UNKNOWN = "anl_01HZZZZZZZZZZZZZZZZZZZZZZZ";

async function conflict(path: string, body: unknown, status: number, detail: string, key = "pk_test_demo_pro") {
  const r = await call(g.url, "POST", path, { body, key });
  expect([r.status, r.body.detail]).toEqual([status, detail]);
  expect(schemaErrors("Error", r.body)).toEqual([]);
}

describe("a report over analyses", () => {
  it("is created over completed analyses (the contract's example)", async () => {
    const r = await call(g.url, "POST", "/v1/reports", { body: example("ReportCreate") });
    expect(r.status).toBe(202);
    expect(r.body.analysis_ids).toEqual([COMPLETED]);
  });

  it("answers 409 for an analysis that is not completed, naming it and its state, and 400 for one the workspace does not have", async () => {
    const body = { ...example("ReportCreate"), analysis_ids: [COMPLETED, PROCESSING] };
    await conflict("/v1/reports", body, 409, `analysis_ids.1: analysis ${PROCESSING} is processing; it must be completed.`);
    await conflict("/v1/reports", { ...body, analysis_ids: [UNKNOWN] }, 400, `analysis_ids.0: no analysis ${UNKNOWN} in this workspace.`);    // An id naming nothing wins over one in the wrong state, wherever it stands (400 before 409).
    await conflict("/v1/reports", { ...body, analysis_ids: [PROCESSING, UNKNOWN] }, 400, `analysis_ids.1: no analysis ${UNKNOWN} in this workspace.`);
  });

  it("answers 400 for another workspace's analysis", async () => {
    const created = await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio" } });
    expect(created.status).toBe(202);
    await conflict("/v1/reports", { ...example("ReportCreate"), analysis_ids: [created.body.id] }, 400, `analysis_ids.0: no analysis ${created.body.id} in this workspace.`, "pk_test_demo_business");
  });

  it("can be made once an analysis created through the API completes", async () => {
    const created = await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/b.mp3", media_type: "audio" } });
    const body = { ...example("ReportCreate"), analysis_ids: [created.body.id] };
    await conflict("/v1/reports", body, 409, `analysis_ids.0: analysis ${created.body.id} is queued; it must be completed.`);
    for (let i = 0; i < 5; i++) g.clock.advance(STEP_MS);
    expect((await call(g.url, "GET", `/v1/analyses/${created.body.id}`)).body.status).toBe("completed");
    expect((await call(g.url, "POST", "/v1/reports", { body })).status).toBe(202);
  });
});

describe("a run of an agent", () => {
  it("starts for an active agent over completed analyses, and answers 409 once the agent is paused", async () => {
    const body = example("RunCreate");
    expect((await call(g.url, "POST", "/v1/runs", { body })).status).toBe(202);
    const agent = body.agent_id;
    expect((await call(g.url, "PATCH", `/v1/agents/${agent}`, { body: { status: "paused" } })).status).toBe(200);
    await conflict("/v1/runs", body, 409, `agent_id: agent ${agent} is paused; it must be active.`);
    expect((await call(g.url, "PATCH", `/v1/agents/${agent}`, { body: { status: "active" } })).status).toBe(200);
    expect((await call(g.url, "POST", "/v1/runs", { body })).status).toBe(202);
  });

  it("answers 400 for an unknown agent and 409 for an analysis in its input that is not completed", async () => {
    const body = example("RunCreate");
    await conflict("/v1/runs", { ...body, agent_id: "agt_01HZZZZZZZZZZZZZZZZZZZZZZZ" }, 400, "agent_id: no agent agt_01HZZZZZZZZZZZZZZZZZZZZZZZ in this workspace.");
    // A new analysis: the seeded processing one moves on as the scheduler advances (decision RM6).
    const queued = (await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/c.mp3", media_type: "audio" } })).body.id;
    await conflict("/v1/runs", { ...body, input: { analysis_ids: [queued] } }, 409, `input.analysis_ids.0: analysis ${queued} is queued; it must be completed.`);
  });
});

describe("an analysis with a use case", () => {
  it("is created with a use case of the workspace (the contract's example names one), and answers 400 for an unknown one", async () => {
    const body = { media_url: "https://media.example.com/c.mp3", media_type: "audio" };
    const useCase = contract.doc.components.schemas.AnalysisCreate.properties.use_case_id.examples[0];
    expect((await call(g.url, "GET", `/v1/use-cases/${useCase}`)).status).toBe(200);
    expect((await call(g.url, "POST", "/v1/analyses", { body: { ...body, use_case_id: useCase } })).status).toBe(202);
    await conflict("/v1/analyses", { ...body, use_case_id: "uc_01HZZZZZZZZZZZZZZZZZZZZZZZ" }, 400, "use_case_id: no use case uc_01HZZZZZZZZZZZZZZZZZZZZZZZ in this workspace.");
  });
});
