// Lifecycles of stored resources, driven by the contract's x-lifecycle: processing steps happen when the test
// advances the gateway's scheduler (STEP_MS each), never by sleeping. GET, the transcript, the SSE stream, the
// WebSocket and the webhooks are views of one event log, so they agree.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, contract, readSse, schemaErrors, startReceiver, startStateful, STEP_MS, wsSession, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  g = await startStateful();
  receiver = await startReceiver();
});
afterAll(async () => {
  await g.close();
  await receiver.close();
});

const example = (name: string) => contract.doc.components.examples[name].value;
const step = () => g.clock.advance(STEP_MS);
// With signals (and so a use case): what a completed analysis carries follows its features (x-completion).
const body = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Q4 call", features: ["transcription", "diarization", "signals"], use_case_id: "uc_01HZX1C4S8E2K6M0P3R7T9V5W1" };

async function sse(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${g.url}${path}`, { headers: { "X-API-Key": "pk_test_demo_pro", ...headers } });
  return { res, events: res.status === 200 ? (await readSse(res)).map((e) => ({ event: e.event!, id: e.id!, data: JSON.parse(e.data) })) : [] };
}

/** The deliveries that name `id`, once `n` have arrived (seeded resources of the workspace deliver too: RM6). */
async function deliveriesOf(id: string, n: number) {
  const own = () => receiver.deliveries.filter((d) => JSON.stringify(d.body.data).includes(id));
  while (own().length < n) await receiver.received(receiver.deliveries.length + 1);
  return own();
}

/** Registers a webhook of the receiver for `types` in the key's workspace. */
async function hook(types: string[], key = "pk_test_demo_pro") {
  const r = await call(g.url, "POST", "/v1/webhooks", { key, body: { url: receiver.url, event_types: types } });
  expect(r.status).toBe(201);
  g.clock.advance(0);
  await new Promise((r) => setTimeout(r, 50)); // the sample deliveries of a new webhook
  receiver.deliveries.length = 0;
}

describe("an analysis", () => {
  it("moves queued → processing → completed one step at a time, with partial results while processing, every view agreeing", async () => {
    await hook(["analysis.completed"]);
    const created = await call(g.url, "POST", "/v1/analyses", { body });
    expect([created.status, created.body.status]).toEqual([202, "queued"]);
    const id = created.body.id;
    const get = async () => (await call(g.url, "GET", `/v1/analyses/${id}`)).body;
    expect(await get()).toEqual(created.body);
    const early = await call(g.url, "GET", `/v1/analyses/${id}/transcript`);
    expect([early.status, early.body.detail]).toEqual([409, "getAnalysisTranscript needs status completed; this Analysis is queued."]);

    step();
    expect((await get()).status).toBe("processing");
    expect((await call(g.url, "GET", `/v1/analyses/${id}/signals`)).body.data).toEqual([]);
    g.clock.advance(STEP_MS * 0.6);
    const partial = (await call(g.url, "GET", `/v1/analyses/${id}/signals`)).body.data;
    // The derived content (content.ts) places the timed signal on a seeded segment: some, not all, is out by now.
    expect(partial.length).toBeLessThan(example("SignalList").data.length);
    expect((await call(g.url, "GET", `/v1/analyses/${id}/transcript`)).status).toBe(409);
    const during = await get();
    expect(during.progress).toBeGreaterThan(5);
    expect(during.progress).toBeLessThan(100);

    g.clock.advance(STEP_MS * 0.4);
    const done = await get();
    expect(done).toMatchObject({ status: "completed", progress: 100, completed_at: new Date(g.clock.now()).toISOString() });
    expect(schemaErrors("Analysis", done)).toEqual([]);
    const transcript = await call(g.url, "GET", `/v1/analyses/${id}/transcript`);
    expect(transcript.status).toBe(200);
    expect(schemaErrors("Transcript", transcript.body)).toEqual([]);
    expect(transcript.body.analysis_id).toBe(id);

    // The SSE replay: the same states in order, the same content as the lists, then the resource as GET shows it.
    const { events } = await sse(`/v1/analysis/${id}/stream`);
    for (const e of events) expect(schemaErrors("AnalysisStreamEvent", e), e.event).toEqual([]);
    expect(events.filter((e) => e.event === "status" && e.data.status !== "processing").map((e) => e.data.status)).toEqual(["queued", "completed"]);
    expect(events.map((e) => e.id)).toEqual(events.map((e) => e.id).sort());
    const signals = (await call(g.url, "GET", `/v1/analyses/${id}/signals`)).body.data;
    expect(events.filter((e) => e.event === "signal").map((e) => e.data.id).sort()).toEqual(signals.map((s: { id: string }) => s.id).sort());
    const alerts = (await call(g.url, "GET", `/v1/analyses/${id}/alerts`)).body.data;
    expect(events.filter((e) => e.event === "alert").map((e) => e.data)).toEqual(alerts);
    expect(events.filter((e) => e.event === "transcript.segment").map((e) => e.data)).toEqual(transcript.body.segments);
    expect(events.at(-1)).toMatchObject({ event: "completed", data: done });
    const labels = transcript.body.speakers.map((s: { label: string }) => s.label);
    expect(labels.slice(0, 2)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect((await call(g.url, "GET", `/v1/analyses/${id}/speakers`)).body.data.map((s: { label: string }) => s.label)).toEqual(labels);

    // The WebSocket view is the same log.
    const ws = await wsSession(`${g.url.replace("http", "ws")}/ws/analyses/${id}?token=pk_test_demo_pro`);
    expect([ws.code, ws.messages]).toEqual([1000, events]);

    // The webhook carries the analysis as GET shows it.
    // Only this analysis' deliveries: the workspace's seeded processing analysis completes too (decision RM6).
    const own = await deliveriesOf(id, 1);
    expect(own.map((d) => d.body.type)).toEqual(["analysis.completed"]);
    expect(own[0]!.body.data.analysis).toEqual(done);
    expect(schemaErrors("WebhookEventAnalysisCompleted", own[0]!.body)).toEqual([]);
  });

  it("streams live: an open stream gets each event as it happens, and ends after the last", async () => {
    const id = (await call(g.url, "POST", "/v1/analyses", { body })).body.id;
    const live = sse(`/v1/analysis/${id}/stream`);
    await new Promise((r) => setTimeout(r, 50)); // the stream is open
    step();
    step();
    const { events } = await live;
    expect(events.at(-1)!.event).toBe("completed");
    expect((await sse(`/v1/analysis/${id}/stream`)).events).toEqual(events);
  });

  it("resumes after Last-Event-ID, and answers 204 once the client has its last event (EventSource stops)", async () => {
    const id = (await call(g.url, "POST", "/v1/analyses", { body })).body.id;
    step();
    step();
    const { events } = await sse(`/v1/analysis/${id}/stream`);
    const rest = await sse(`/v1/analysis/${id}/stream`, { "Last-Event-ID": events[2]!.id });
    expect(rest.events).toEqual(events.slice(3));
    const over = await sse(`/v1/analysis/${id}/stream`, { "Last-Event-ID": events.at(-1)!.id });
    expect([over.res.status, await over.res.text()]).toEqual([204, ""]);
    expect(over.res.headers.get("x-ratelimit-limit")).toBe("75");
    // An unknown analysis: 404 on the stream and on the WebSocket upgrade.
    expect((await sse("/v1/analysis/anl_01HZZZZZZZZZZZZZZZZZZZZZZZ/stream")).res.status).toBe(404);
    await expect(wsSession(`${g.url.replace("http", "ws")}/ws/analyses/anl_01HZZZZZZZZZZZZZZZZZZZZZZZ?token=pk_test_demo_pro`)).rejects.toMatchObject({ status: 404 });
  });

  it("Prefer: scenario=fail (or ?__scenario=fail) fails it: status failed, an error event, the analysis.failed webhook", async () => {
    await hook(["analysis.failed"], "pk_test_demo_starter");
    const a = await call(g.url, "POST", "/v1/analyses", { key: "pk_test_demo_starter", body, headers: { Prefer: "scenario=fail" } });
    const b = await call(g.url, "POST", "/v1/analyses?__scenario=fail", { key: "pk_test_demo_starter", body });
    step();
    step();
    for (const created of [a, b]) {
      const got = (await call(g.url, "GET", `/v1/analyses/${created.body.id}`, { key: "pk_test_demo_starter" })).body;
      expect(got).toMatchObject({ status: "failed", error: { code: "processing_error" }, completed_at: null });
      expect((await call(g.url, "GET", `/v1/analyses/${created.body.id}/signals`, { key: "pk_test_demo_starter" })).body.data).toEqual([]);
      const { events } = await sse(`/v1/analysis/${created.body.id}/stream`, { "X-API-Key": "pk_test_demo_starter" });
      expect(events.slice(-2)).toEqual([
        expect.objectContaining({ event: "status", data: { analysis_id: created.body.id, status: "failed", progress: 5 } }),
        expect.objectContaining({ event: "error", data: { detail: got.error.message } }),
      ]);
    }
    await receiver.received(2);
    expect(receiver.deliveries.map((d) => [d.body.type, d.body.data.analysis.id])).toEqual([
      ["analysis.failed", a.body.id],
      ["analysis.failed", b.body.id],
    ]);
  });

  it("an unknown scenario answers 400 listing the operation's; stream_error ends a stream with an error event", async () => {
    const bad = await call(g.url, "POST", "/v1/analyses", { body, headers: { Prefer: "scenario=explode" } });
    expect([bad.status, bad.body.detail]).toEqual([400, "Prefer scenario=explode: POST /v1/analyses takes the scenarios fail."]);
    const none = await call(g.url, "POST", "/v1/boards?__scenario=fail", { body: { name: "x" } });
    expect([none.status, none.body.detail]).toEqual([400, "Prefer scenario=fail: POST /v1/boards takes no scenario."]);
    const runs = await call(g.url, "POST", "/v1/runs", { body: { agent_id: example("Agent").id }, headers: { Prefer: "scenario=x" } });
    expect(runs.body.detail).toBe("Prefer scenario=x: POST /v1/runs takes the scenarios fail, approval.");
    const id = (await call(g.url, "POST", "/v1/analyses", { body })).body.id;
    const { events } = await sse(`/v1/analysis/${id}/stream?__scenario=stream_error`);
    expect(events.map((e) => e.event)).toEqual(["status", "error"]);
    expect(schemaErrors("AnalysisStreamEvent", events[1])).toEqual([]);
  });

  it("DELETE cancels a running analysis first: an open stream gets status canceled and ends; then 404", async () => {
    const id = (await call(g.url, "POST", "/v1/analyses", { body })).body.id;
    step();
    const live = sse(`/v1/analysis/${id}/stream`);
    await new Promise((r) => setTimeout(r, 50));
    expect((await call(g.url, "DELETE", `/v1/analyses/${id}`)).status).toBe(204);
    const { events } = await live;
    expect(events.at(-1)).toMatchObject({ event: "status", data: { status: "canceled" } });
    expect((await call(g.url, "GET", `/v1/analyses/${id}`)).status).toBe(404);
    g.clock.advance(STEP_MS * 10); // its pending steps were canceled too
    expect((await call(g.url, "GET", `/v1/analyses/${id}`)).status).toBe(404);
  });
});

describe("moves from outside the API", () => {
  it("an alert is acknowledged and resolved only through the mock's control hook (store.moveExternally), never backwards", async () => {
    const key = "pk_test_demo_starter";
    const id = (await call(g.url, "POST", "/v1/analyses", { key, body })).body.id;
    step();
    step();
    const [alert] = (await call(g.url, "GET", `/v1/analyses/${id}/alerts`, { key })).body.data;
    expect(alert).toMatchObject({ status: "open", acknowledged_at: null });
    const ws = (await call(g.url, "GET", `/v1/analyses/${id}`, { key })).body.workspace_id;
    expect(g.gateway.store.moveExternally(ws, alert.id, "acknowledged")).toMatchObject({ value: { status: "acknowledged", acknowledged_at: new Date(g.clock.now()).toISOString() } });
    expect((await call(g.url, "GET", `/v1/analyses/${id}/alerts?status=acknowledged`, { key })).body.data.map((a: { id: string }) => a.id)).toEqual([alert.id]);
    expect(g.gateway.store.moveExternally(ws, alert.id, "resolved")).toMatchObject({ value: { status: "resolved" } });
    expect(g.gateway.store.moveExternally(ws, alert.id, "open")).toEqual({ problem: `The alert ${alert.id} is resolved: it cannot move to open from outside the API.` });
    expect(g.gateway.store.moveExternally(ws, "alr_01HZZZZZZZZZZZZZZZZZZZZZZZ", "resolved")).toMatchObject({ problem: expect.stringContaining("No resource") });
  });
});

describe("runs and approvals", () => {
  const key = "pk_test_demo_business";

  it("a run of an agent that requires approval asks for it: the approval links back, approving resumes the run, deciding twice is 409", async () => {
    await hook(["approval.requested", "run.finished"], key);
    const agent = await call(g.url, "POST", "/v1/agents", { key, body: { ...example("AgentCreate"), requires_approval: true } });
    expect(agent.status).toBe(201);
    const run = await call(g.url, "POST", "/v1/runs", { key, body: { agent_id: agent.body.id } });
    expect(run.body).toMatchObject({ status: "queued", approval_id: null, started_at: null });
    step();
    expect((await call(g.url, "GET", `/v1/runs/${run.body.id}`, { key })).body).toMatchObject({ status: "running", started_at: new Date(g.clock.now()).toISOString() });
    step();
    const waiting = (await call(g.url, "GET", `/v1/runs/${run.body.id}`, { key })).body;
    expect(waiting.status).toBe("awaiting_approval");
    const approval = (await call(g.url, "GET", `/v1/approvals/${waiting.approval_id}`, { key })).body;
    expect(schemaErrors("Approval", approval)).toEqual([]);
    expect(approval).toMatchObject({ status: "pending", run_id: run.body.id, agent_id: agent.body.id, workspace_id: run.body.workspace_id, decided_at: null });
    expect(Date.parse(approval.expires_at) - Date.parse(approval.requested_at)).toBe(72 * 3600_000);
    expect((await call(g.url, "GET", `/v1/approvals?run_id=${run.body.id}`, { key })).body.data).toEqual([approval]);

    const approved = await call(g.url, "POST", `/v1/approvals/${approval.id}/approve`, { key, body: { comment: "Go ahead." } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "approved", comment: "Go ahead.", decided_at: new Date(g.clock.now()).toISOString() });
    const again = await call(g.url, "POST", `/v1/approvals/${approval.id}/approve`, { key, body: {} });
    expect([again.status, again.body.detail]).toEqual([409, "approveApproval needs status pending; this Approval is approved."]);
    expect((await call(g.url, "POST", `/v1/approvals/${approval.id}/reject`, { key, body: {} })).status).toBe(409);
    expect((await call(g.url, "GET", `/v1/runs/${run.body.id}`, { key })).body.status).toBe("running");
    step();
    const finished = (await call(g.url, "GET", `/v1/runs/${run.body.id}`, { key })).body;
    expect(finished.status).toBe("succeeded"); // approval is asked for once
    expect((await call(g.url, "POST", `/v1/runs/${run.body.id}/cancel`, { key })).status).toBe(409);

    // Seeded runs move too (decision RM6): only this run's deliveries are compared.
    const own = await deliveriesOf(run.body.id, 2);
    expect(own.map((d) => d.body.type)).toEqual(["approval.requested", "run.finished"]);
    expect(own[1]!.body.data.run).toEqual(finished);
  });

  it("cancelling answers the canceled run, a second cancel is 409, and its pending approval expires with it", async () => {
    const agent = (await call(g.url, "POST", "/v1/agents", { key, body: { ...example("AgentCreate"), requires_approval: false } })).body;
    const run = (await call(g.url, "POST", "/v1/runs", { key, body: { agent_id: agent.id }, headers: { Prefer: "scenario=approval" } })).body;
    step();
    step();
    const approvalId = (await call(g.url, "GET", `/v1/runs/${run.id}`, { key })).body.approval_id;
    const canceled = await call(g.url, "POST", `/v1/runs/${run.id}/cancel`, { key });
    expect(canceled.body).toMatchObject({ status: "canceled", finished_at: new Date(g.clock.now()).toISOString() });
    expect((await call(g.url, "GET", `/v1/runs/${run.id}`, { key })).body).toEqual(canceled.body);
    const twice = await call(g.url, "POST", `/v1/runs/${run.id}/cancel`, { key });
    expect(twice.status).toBe(409);
    expect((await call(g.url, "GET", `/v1/approvals/${approvalId}`, { key })).body).toMatchObject({ status: "expired", decided_by: null });
  });

  it("a pending approval expires 72 hours after it was requested", async () => {
    const agent = (await call(g.url, "POST", "/v1/agents", { key, body: { ...example("AgentCreate"), requires_approval: true } })).body;
    const run = (await call(g.url, "POST", "/v1/runs", { key, body: { agent_id: agent.id } })).body;
    step();
    step();
    const approvalId = (await call(g.url, "GET", `/v1/runs/${run.id}`, { key })).body.approval_id;
    g.clock.advance(72 * 3600_000 - 1);
    expect((await call(g.url, "GET", `/v1/approvals/${approvalId}`, { key })).body.status).toBe("pending");
    g.clock.advance(1);
    expect((await call(g.url, "GET", `/v1/approvals/${approvalId}`, { key })).body).toMatchObject({ status: "expired", decided_at: new Date(g.clock.now()).toISOString() });
    // The run goes on once its approval is decided, here by expiry.
    step();
    expect((await call(g.url, "GET", `/v1/runs/${run.id}`, { key })).body.status).toBe("succeeded");
  });

  it("agent health is derived from the agent's runs and approvals, as its schema describes", async () => {
    const agent = (await call(g.url, "POST", "/v1/agents", { key, body: { ...example("AgentCreate"), requires_approval: false } })).body;
    const path = `/v1/agent-monitoring/agents/${agent.id}`;
    expect((await call(g.url, "GET", path, { key })).body).toMatchObject({ agent_id: agent.id, status: "idle", runs_total: 0, success_rate: null, last_run_at: null, last_error: null });
    const ok = (await call(g.url, "POST", "/v1/runs", { key, body: { agent_id: agent.id } })).body;
    const bad = (await call(g.url, "POST", "/v1/runs", { key, body: { agent_id: agent.id }, headers: { Prefer: "scenario=fail" } })).body;
    step();
    step();
    const health = (await call(g.url, "GET", path, { key })).body;
    expect(schemaErrors("AgentHealth", health)).toEqual([]);
    const failed = (await call(g.url, "GET", `/v1/runs/${bad.id}`, { key })).body;
    expect(health).toMatchObject({ status: "degraded", window: "last_24h", runs_total: 2, runs_succeeded: 1, runs_failed: 1, success_rate: 0.5, p50_duration_ms: STEP_MS, last_run_at: bad.created_at });
    expect(health.last_error).toEqual({ run_id: bad.id, code: failed.error.code, message: failed.error.message, failed_at: failed.finished_at });
    expect(ok.id).toMatch(/^run_/);
    const listed = (await call(g.url, "GET", "/v1/agent-monitoring/agents?status=degraded&limit=100", { key })).body.data;
    expect(listed.find((h: { agent_id: string }) => h.agent_id === agent.id)).toEqual(health);
    expect((await call(g.url, "GET", `${path}?window=last_7d`, { key })).body).toMatchObject({ window: "last_7d", runs_total: 2 });
  });

  it("an agent moves active ⇄ paused → archived by PATCH; an archived agent answers 409", async () => {
    const agent = (await call(g.url, "POST", "/v1/agents", { key, body: example("AgentCreate") })).body;
    expect(agent.status).toBe("active");
    expect((await call(g.url, "PATCH", `/v1/agents/${agent.id}`, { key, body: { status: "paused" } })).body.status).toBe("paused");
    expect((await call(g.url, "PATCH", `/v1/agents/${agent.id}`, { key, body: { status: "archived" } })).body.status).toBe("archived");
    const late = await call(g.url, "PATCH", `/v1/agents/${agent.id}`, { key, body: { name: "Renamed" } });
    expect([late.status, late.body.detail]).toEqual([409, "updateAgent needs status active or paused; this Agent is archived."]);
    const paused = (await call(g.url, "POST", "/v1/agents", { key, body: { ...example("AgentCreate"), status: "paused" } })).body;
    expect(paused.status).toBe("paused");
  });
});

describe("other processing resources", () => {
  const key = "pk_test_demo_free";

  it("a report goes queued → generating → ready (report.ready); with scenario fail it fails from queued", async () => {
    const ready = (await call(g.url, "POST", "/v1/reports", { key, body: example("ReportCreate") })).body;
    const failing = (await call(g.url, "POST", "/v1/reports", { key, body: example("ReportCreate"), headers: { Prefer: "scenario=fail" } })).body;
    expect([ready.status, failing.status]).toEqual(["queued", "queued"]);
    step();
    expect((await call(g.url, "GET", `/v1/reports/${ready.id}`, { key })).body.status).toBe("generating");
    expect((await call(g.url, "GET", `/v1/reports/${failing.id}`, { key })).body).toMatchObject({ status: "failed", error: { code: "internal_error" } });
    step();
    const done = (await call(g.url, "GET", `/v1/reports/${ready.id}`, { key })).body;
    expect(done).toMatchObject({ status: "ready", completed_at: new Date(g.clock.now()).toISOString() });
    expect(schemaErrors("Report", done)).toEqual([]);
  });

  it("privacy exports and deletions, and speaker enrollment, finish by themselves", async () => {
    const exp = (await call(g.url, "POST", "/v1/privacy/exports", { key, body: example("PrivacyExportCreate") })).body;
    const del = (await call(g.url, "POST", "/v1/privacy/deletions", { key, body: example("PrivacyDeletionCreate") })).body;
    const spk = (await call(g.url, "POST", "/v1/speakers", { key, body: example("SpeakerCreate") })).body;
    expect([exp.status, del.status, spk.enrollment_status, spk.sample_count]).toEqual(["pending", "pending", "pending", example("SpeakerCreate").sample_analysis_ids.length]);
    step();
    expect((await call(g.url, "GET", `/v1/speakers/${spk.id}`, { key })).body.enrollment_status).toBe("enrolled");
    step();
    expect((await call(g.url, "GET", `/v1/privacy/exports/${exp.id}`, { key })).body.status).toBe("completed");
    expect((await call(g.url, "GET", `/v1/privacy/deletions/${del.id}`, { key })).body.status).toBe("completed");
  });

  it("seeded resources that processing moves move on (decision RM6); those moved from outside rest", async () => {
    const processing = example("AnalysisList").data.find((a: { status: string }) => a.status === "processing");
    const alert = example("AlertList").data.find((a: { status: string }) => a.status === "open");
    g.clock.advance(STEP_MS * 20);
    expect((await call(g.url, "GET", `/v1/analyses/${processing.id}`, { key })).body.status).toBe("completed");
    expect((await call(g.url, "GET", `/v1/analyses/${processing.id}/transcript`, { key })).status).toBe(200);
    if (alert) expect((await call(g.url, "GET", `/v1/analyses/${alert.analysis_id}/alerts`, { key })).body.data.find((a: { id: string }) => a.id === alert.id)?.status).toBe("open");
  });
});

describe("a live /v1/stream session", () => {
  it("stores its analysis: GET shows it processing, and after stop completed; its SSE stream is what the WebSocket sent", async () => {
    let id = "";
    let stopped = false;
    const r = await wsSession(`${g.url.replace("http", "ws")}/v1/stream?token=pk_test_demo_pro&media_type=audio&encoding=opus`, {
      onMessage: async (m, s) => {
        if (m.event === "session.started") id = m.data.analysis_id;
        if (m.event === "signal" && !stopped) {
          stopped = true;
          const during = await call(g.url, "GET", `/v1/analyses/${id}`);
          expect(during.body).toMatchObject({ status: "processing", source: { type: "stream", content_type: "audio/opus" } });
          s.send(JSON.stringify({ type: "stop" }));
        }
      },
    });
    expect(r.code).toBe(1000);
    const done = (await call(g.url, "GET", `/v1/analyses/${id}`)).body;
    expect(done.status).toBe("completed");
    expect(r.messages.at(-1)).toMatchObject({ event: "completed", data: done });
    const { events } = await sse(`/v1/analysis/${id}/stream`);
    expect(events).toEqual(r.messages.filter((m) => m.event !== "session.started" && m.event !== "transcript.partial"));
  });

  it("a session ended by cancel cancels its analysis; one left idle fails it with the reason", async () => {
    let canceled = "";
    await wsSession(`${g.url.replace("http", "ws")}/v1/stream?token=pk_test_demo_pro`, {
      onMessage: (m, s) => {
        if (m.event === "session.started") {
          canceled = m.data.analysis_id;
          s.send(JSON.stringify({ type: "cancel" }));
        }
      },
    });
    expect((await call(g.url, "GET", `/v1/analyses/${canceled}`)).body.status).toBe("canceled");
    const bad = await wsSession(`${g.url.replace("http", "ws")}/v1/stream?token=pk_test_demo_pro`, { onOpen: (s) => s.send("hello") });
    const failedId = bad.messages[0].data.analysis_id;
    expect((await call(g.url, "GET", `/v1/analyses/${failedId}`)).body).toMatchObject({ status: "failed", error: { message: bad.messages.at(-1).data.detail } });
  });
});

describe("a seeded processing analysis (one consistent story)", () => {
  it("never reports less progress than it has shown: GET and its stream only go forward, to 100 (issue 31)", async () => {
    const own = await startStateful();
    try {
      const seeded = example("AnalysisList").data.find((a: { status: string }) => a.status === "processing");
      const seen: number[] = [];
      for (let i = 0; i < 30; i++) {
        const got = (await call(own.url, "GET", `/v1/analyses/${seeded.id}`)).body;
        seen.push(got.progress);
        if (got.status === "completed") break;
        own.clock.advance(STEP_MS / 10);
      }
      expect(seen[0]).toBe(seeded.progress);
      expect(seen.at(-1)).toBe(100);
      expect(new Set(seen).size).toBeGreaterThan(2); // it moved through reports, not straight to the end
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const res = await fetch(`${own.url}/v1/analysis/${seeded.id}/stream`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
      const progress = (await readSse(res)).filter((e) => e.event === "status").map((e) => JSON.parse(e.data).progress as number);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    } finally {
      await own.close();
    }
  });
});
