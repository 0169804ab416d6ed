// Issue 20's findings over real HTTP: the rules the contract states in machine-readable form (docs/contract-rules.md)
// are what the mock does: defaults from the contract (not the create example), cross-field rules with their
// documented status, values derived from the request, completion that fills what a finished resource carries,
// seeded resources that are complete and move, reverse references, and scopes.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../../../../src/mock/core/access/auth.js";
import { call, contract, getJson, schemaErrors, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
beforeAll(async () => {
  g = await startStateful({ jwtSecret: "contract-rules-test-secret-of-32-bytes!!" });
});
afterAll(async () => {
  await g.close();
});

const USE_CASE = "uc_01HZX1C4S8E2K6M0P3R7T9V5W1";
const example = (name: string) => structuredClone(contract.doc.components.examples[name].value);
const steps = (n = 8) => {
  for (let i = 0; i < n; i++) g.clock.advance(STEP_MS);
};
const post = (path: string, body: unknown, key?: string) => call(g.url, "POST", path, { body, key });

describe("omitted fields take the contract's rules, not the create example's values", () => {
  it("answers 422 for an analysis with neither media_url nor text", async () => {
    const r = await post("/v1/analyses", { media_type: "audio" });
    expect(r.status).toBe(422);
  });

  it("defaults features to transcription and diarization, transcription alone for text, the use case's with one", async () => {
    const audio = await post("/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/x/call-7.mp3" });
    expect(audio.body.features).toEqual(["transcription", "diarization"]);
    const text = await post("/v1/analyses", { media_type: "text", text: "Hello there." });
    expect(text.body.features).toEqual(["transcription"]);
    const uc = (await call(g.url, "GET", `/v1/use-cases/${USE_CASE}`)).body;
    const withUc = await post("/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/y.mp3", use_case_id: USE_CASE });
    expect(withUc.body.features).toEqual(uc.features);
  });

  it("answers 400 for signals without a use case and for diarization of text", async () => {
    const signals = await post("/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/z.mp3", features: ["signals"] });
    expect([signals.status, signals.body.detail]).toEqual([400, expect.stringContaining("`signals` needs `use_case_id`")]);
    const diar = await post("/v1/analyses", { media_type: "text", text: "Hi.", features: ["diarization"] });
    expect(diar.status).toBe(400);
  });

  it("keeps the statuses of AnalysisCreate's union (oneOf): both media_url and text 422 naming each, text with diarization 400, http:// 422", async () => {
    const both = await post("/v1/analyses", { media_type: "text", media_url: "https://media.example.com/z.mp3", text: "Hi." });
    expect(both.status).toBe(422);
    expect(both.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ["body", "text"], msg: "cannot be combined with `media_url`" }), expect.objectContaining({ loc: ["body", "media_url"], msg: "cannot be combined with `text`" })]));
    const diar = await post("/v1/analyses", { media_type: "text", text: "Hi.", features: ["transcription", "speaker_identification"] });
    expect([diar.status, diar.body.detail]).toEqual([400, expect.stringContaining("not available for it")]);
    const http = await post("/v1/analyses", { media_type: "audio", media_url: "http://media.example.com/z.mp3" });
    expect(http.status).toBe(422);
    expect(http.body.detail).toEqual([expect.objectContaining({ loc: ["body", "media_url"], type: "pattern" })]);
    const neither = await post("/v1/analyses", { media_type: "audio" });
    expect(neither.body.detail).toEqual([expect.objectContaining({ loc: ["body"], msg: "must have one of `media_url` or `text`" })]);
  });

  it("takes the title from the last path segment of media_url", async () => {
    const r = await post("/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/calls/renewal-call.mp3?sig=abc" });
    expect(r.body.title).toBe("renewal-call.mp3");
    expect(r.body.source).toMatchObject({ type: "url", filename: "renewal-call.mp3" });
  });

  it("gives a run without input no analyses and no prompt, and an agent without trigger a manual one", async () => {
    const agent = await post("/v1/agents", { name: "Rules test agent", instructions: "Summarise.", requires_approval: false });
    expect(agent.status).toBe(201);
    expect(agent.body.trigger).toEqual({ type: "manual", schedule: null, event_types: [] });
    const run = await post("/v1/runs", { agent_id: agent.body.id });
    expect(run.status).toBe(202);
    expect(run.body.input).toEqual({ analysis_ids: [], prompt: null });
  });
});

describe("finished resources carry what the contract says they carry", () => {
  it("a completed text analysis: its own text as transcript, a summary, the detected language, no duration", async () => {
    const text = "Hi, I was charged twice for my November invoice. Please refund the duplicate charge today. Thanks.";
    const created = await post("/v1/analyses", { media_type: "text", text, features: ["transcription", "summary"] });
    expect(created.status).toBe(202);
    steps();
    const a = (await call(g.url, "GET", `/v1/analyses/${created.body.id}`)).body;
    expect(a.status).toBe("completed");
    expect(a.duration_seconds).toBeNull();
    expect(typeof a.summary).toBe("string");
    expect(a.language).toBe("en");
    expect(a.source).toMatchObject({ type: "text", size_bytes: Buffer.byteLength(text) });
    const t = await call(g.url, "GET", `/v1/analyses/${created.body.id}/transcript`);
    expect(t.status).toBe(200);
    expect(t.body.segments.map((s: any) => s.text).join(" ")).toBe(text);
    expect(t.body.text).not.toContain("Northwind");
    expect(schemaErrors("Transcript", t.body)).toEqual([]);
    expect(schemaErrors("Analysis", a)).toEqual([]);
  });

  it("a succeeded run has output with proposed actions", async () => {
    const agent = await post("/v1/agents", { name: "Rules test agent 2", instructions: "Summarise.", requires_approval: false });
    const run = await post("/v1/runs", { agent_id: agent.body.id });
    steps();
    const r = (await call(g.url, "GET", `/v1/runs/${run.body.id}`)).body;
    expect(r.status).toBe("succeeded");
    expect(r.output).toMatchObject({ summary: expect.any(String) });
    expect(r.output.actions.length).toBeGreaterThan(0);
    expect(schemaErrors("Run", r)).toEqual([]);
  });

  it("a run awaiting approval has its proposed actions; approving them executes them", async () => {
    const agent = await post("/v1/agents", { name: "Rules test agent 4", instructions: "Summarise.", requires_approval: true });
    const run = await post("/v1/runs", { agent_id: agent.body.id });
    steps(2);
    const waiting = (await call(g.url, "GET", `/v1/runs/${run.body.id}`)).body;
    expect(waiting.status).toBe("awaiting_approval");
    expect(waiting.output.actions.map((a: any) => a.status)).toEqual(waiting.output.actions.map(() => "pending_approval"));
    expect(waiting.output.actions.length).toBeGreaterThan(0);
    expect((await post(`/v1/approvals/${waiting.approval_id}/approve`, {})).status).toBe(200);
    steps();
    const done = (await call(g.url, "GET", `/v1/runs/${run.body.id}`)).body;
    expect(done.status).toBe("succeeded");
    expect(done.output.actions.map((a: any) => a.status)).toEqual(done.output.actions.map(() => "executed"));
    expect(schemaErrors("Run", done)).toEqual([]);
  });

  it("a ready report has a download_url on the mock serving a file of its format", async () => {
    for (const [format, magic, type] of [["pdf", "%PDF-", "application/pdf"], ["docx", "PK", "wordprocessingml"], ["markdown", "# ", "text/markdown"], ["json", "{", "application/json"]] as const) {
      const created = await post("/v1/reports", { ...example("ReportCreate"), format });
      expect(created.status).toBe(202);
      steps();
      const rep = (await call(g.url, "GET", `/v1/reports/${created.body.id}`)).body;
      expect(rep.status).toBe("ready");
      expect(rep.download_url.startsWith(g.url + "/")).toBe(true);
      const file = await fetch(rep.download_url);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toContain(type);
      expect((await file.text()).startsWith(magic)).toBe(true);
      expect(schemaErrors("Report", rep)).toEqual([]);
    }
  });
});

describe("seeded resources are complete and move", () => {
  it("every seeded completed analysis has the transcript, speakers and signals its features promise", async () => {
    const list = (await call(g.url, "GET", "/v1/analyses?limit=100")).body.data;
    const done = list.filter((a: any) => a.status === "completed");
    expect(done.length).toBeGreaterThan(1);
    for (const a of done) {
      const t = await call(g.url, "GET", `/v1/analyses/${a.id}/transcript`);
      expect([a.id, t.status]).toEqual([a.id, 200]);
      if (a.features.includes("diarization")) expect([a.id, (await call(g.url, "GET", `/v1/analyses/${a.id}/speakers`)).body.data.length > 0]).toEqual([a.id, true]);
      if (a.features.includes("signals")) expect([a.id, (await call(g.url, "GET", `/v1/analyses/${a.id}/signals`)).body.data.length > 0]).toEqual([a.id, true]);
      if (a.features.includes("summary")) expect([a.id, typeof a.summary]).toEqual([a.id, "string"]);
    }
  });

  it("the seeded processing analysis completes", async () => {
    const key = "pk_test_demo_business";
    const list = (await call(g.url, "GET", "/v1/analyses?limit=100", { key })).body.data;
    const moving = list.filter((a: any) => a.status === "processing" || a.status === "queued");
    expect(moving.length).toBeGreaterThan(0);
    steps(12);
    for (const a of moving) expect([a.id, (await call(g.url, "GET", `/v1/analyses/${a.id}`, { key })).body.status]).toEqual([a.id, "completed"]);
  });
});

describe("uploads derive what the request says", () => {
  it("a multipart audio/mpeg file: media_type audio, its content type, size and file name", async () => {
    const form = new FormData();
    form.append("file", new Blob([Buffer.alloc(2048, 1)], { type: "audio/mpeg" }), "standup.mp3");
    const r = await getJson(g.url + "/v1/analyses/upload", { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro" }, body: form });
    expect(r.status).toBe(202);
    expect(r.body.media_type).toBe("audio");
    expect(r.body.title).toBe("standup.mp3");
    expect(r.body.source).toEqual({ type: "upload", url: null, filename: "standup.mp3", content_type: "audio/mpeg", size_bytes: 2048 });
  });

  it.each([
    ["text/plain", "notes.txt", "Customer: the invoice was charged twice. Agent: I will refund the duplicate today.", "the invoice was charged twice"],
    ["text/markdown", "notes.md", "# Call notes\n\nThe customer asked about the renewal price. We promised a quote by Friday.", "the renewal price"],
  ])("a %s file is analysed as text: its own sentences, no timings or speakers, duration null (Transcript.yaml)", async (type, name, text, fragment) => {
    const form = new FormData();
    form.append("file", new Blob([text], { type }), name);
    const r = await getJson(g.url + "/v1/analyses/upload", { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro" }, body: form });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.media_type).toBe("text");
    steps();
    const a = (await call(g.url, "GET", `/v1/analyses/${r.body.id}`)).body;
    const t = (await call(g.url, "GET", `/v1/analyses/${r.body.id}/transcript`)).body;
    expect([a.status, a.duration_seconds, t.duration_seconds, t.speakers]).toEqual(["completed", null, null, []]);
    expect(t.segments.every((s: any) => s.start === null && s.end === null && s.speaker_label === null && s.words.length === 0)).toBe(true);
    expect(t.segments.map((s: any) => s.text).join(" ")).toContain(fragment);
    expect(t.text).not.toContain("Northwind");
  });

  it("a stream-upload of 4,096 bytes reports size_bytes 4096", async () => {
    const r = await getJson(g.url + "/v1/analysis/stream-upload?media_type=audio", { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/octet-stream" }, body: Buffer.alloc(4096, 7) });
    expect(r.status).toBe(202);
    expect(r.body.source).toMatchObject({ type: "upload", size_bytes: 4096 });
  });
});

describe("reverse references and scopes", () => {
  it("deleting or archiving an agent with a queued run answers 409", async () => {
    const agent = await post("/v1/agents", { name: "Rules test agent 3", instructions: "Summarise." });
    const run = await post("/v1/runs", { agent_id: agent.body.id });
    expect(run.body.status).toBe("queued");
    const del = await call(g.url, "DELETE", `/v1/agents/${agent.body.id}`);
    expect([del.status, del.body.detail]).toEqual([409, expect.stringContaining(run.body.id)]);
    const arch = await call(g.url, "PATCH", `/v1/agents/${agent.body.id}`, { body: { status: "archived" } });
    expect(arch.status).toBe(409);
    await call(g.url, "POST", `/v1/runs/${run.body.id}/cancel`);
    expect((await call(g.url, "DELETE", `/v1/agents/${agent.body.id}`)).status).toBe(204);
  });

  it("a token with scope analyses:read reads analyses but cannot create them or live keys", async () => {
    const token = await mintToken({ secret: "contract-rules-test-secret-of-32-bytes!!", workspaceId: "ws_DemoBusiness", plan: "business", expiresInSeconds: 600, now: g.clock.now(), claims: { scope: "analyses:read" } });
    const auth = { Authorization: `Bearer ${token}` };
    const read = await getJson(g.url + "/v1/analyses", { headers: auth });
    expect(read.status).toBe(200);
    const create = await getJson(g.url + "/v1/analyses", { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ media_type: "text", text: "x" }) });
    expect([create.status, create.body.error]).toEqual([403, "insufficient_permission"]);
    expect(create.body.detail).toContain("analyses:write");
    const key = await getJson(g.url + "/v1/keys", { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ name: "x", environment: "live" }) });
    expect(key.status).toBe(403);
  });
});
