// SSE and WebSocket flows, with every message checked against the contract (OpenAPI schemas for SSE, the
// AsyncAPI document spec/asyncapi.yaml for the WebSockets, parsed with @asyncapi/parser, validated with ajv).
import { Parser, fromFile, type AsyncAPIDocumentInterface } from "@asyncapi/parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { DEFAULT_JWT_SECRET, mintToken } from "../../../../src/mock/core/access/auth.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { deref, doc } from "../../../helpers/contract.js";
import { ANALYSIS_ID, apiKey, freshKey, getJson, rateHeaders, readSse, schemaErrors, startGateway, wsSession, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
let asyncapi: AsyncAPIDocumentInterface;
const limited = freshKey("pro", { rate_limit_rpm: 2 });
const pro = apiKey("pk_test_demo_pro");

/** Validators of each channel's messages, by message name (the `event` of a server message, the `type` of a control frame). */
const channelValidators = new Map<string, Map<string, ValidateFunction>>();

beforeAll(async () => {
  g = await startGateway({ extraKeys: [limited], wsIdleTimeoutMs: 200 });
  const { document, diagnostics } = await fromFile(new Parser(), path.join(REPO_ROOT, "spec/asyncapi.yaml")).parse();
  expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  asyncapi = document!;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const channel of asyncapi.channels()) {
    const byName = new Map<string, ValidateFunction>();
    for (const m of channel.messages()) byName.set(m.name()!, ajv.compile(m.payload()!.json()));
    channelValidators.set(channel.address()!, byName);
  }
});
afterAll(() => g.close());

function expectValidMessage(channel: string, m: { event: string }, name = m.event) {
  const validate = channelValidators.get(channel)?.get(name);
  expect(validate, `${channel} documents a message named ${name}`).toBeDefined();
  expect(validate!(m), `${name}: ${JSON.stringify(validate!.errors)}`).toBe(true);
}

const ws = (p: string) => g.url.replace(/^http/, "ws") + p;

async function sseEvents(url: string, headers: Record<string, string> = pro) {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return { res, events: (await readSse(res)).map((e) => ({ event: e.event!, id: e.id!, data: JSON.parse(e.data) })) };
}

describe("SSE GET /v1/analysis/{id}/stream", () => {
  it("plays a realistic sequence of the contract's events, then ends", async () => {
    const { res, events } = await sseEvents(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`);
    expect(rateHeaders(res.headers).limit).toBe(75); // streaming category of the Pro plan
    for (const e of events) expect(schemaErrors("AnalysisStreamEvent", e), e.event).toEqual([]);
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe("status");
    expect(events[0]!.data).toEqual({ analysis_id: ANALYSIS_ID, status: "queued", progress: 0 });
    expect(kinds).toEqual(expect.arrayContaining(["transcript.segment", "signal", "alert"]));
    expect(kinds.slice(-2)).toEqual(["status", "completed"]);
    const progress = events.filter((e) => e.event === "status").map((e) => e.data.progress);
    expect(progress.length).toBeGreaterThan(3);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    // An alert follows the signal that raised it.
    const alert = kinds.indexOf("alert");
    expect(events[alert - 1]!.event).toBe("signal");
    expect(events[alert]!.data.signal_id).toBe(events[alert - 1]!.data.id);
    // Ids increase; the data is about this analysis, in the caller's workspace.
    expect(events.map((e) => e.id)).toEqual(events.map((e) => e.id).sort());
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({ id: ANALYSIS_ID, status: "completed", progress: 100, workspace_id: "ws_DemoPro00000" });
  });

  it("resumes after Last-Event-ID", async () => {
    const { events: all } = await sseEvents(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`);
    const { events: rest } = await sseEvents(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`, { ...pro, "Last-Event-ID": all[2]!.id });
    expect(rest).toEqual(all.slice(3));
  });

  it("accepts a bearer JWT in ?token=", async () => {
    const jwt = await mintToken({ secret: DEFAULT_JWT_SECRET, workspaceId: "ws_DemoFree0000", expiresInSeconds: 60, now: g.clock.now() });
    const { events } = await sseEvents(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream?token=${jwt}`, {});
    expect(events.at(-1)!.data.workspace_id).toBe("ws_DemoFree0000");
  });

  it("with Prefer for an error code, answers that documented error instead of streaming", async () => {
    const r = await getJson(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`, { headers: { ...pro, Prefer: "code=404" } });
    expect(r.status).toBe(404);
  });
});

describe("WebSocket /ws/analyses/{analysis_id}", () => {
  it("plays the same events as the SSE stream, each valid per the AsyncAPI document, then closes 1000", async () => {
    const { events } = await sseEvents(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`);
    const r = await wsSession(ws(`/ws/analyses/${ANALYSIS_ID}?token=pk_test_demo_pro`));
    expect(r.code).toBe(1000);
    expect(r.messages).toEqual(events);
    for (const m of r.messages) expectValidMessage("/ws/analyses/{analysis_id}", m);
    expect(Number(r.upgradeHeaders["x-ratelimit-limit"])).toBe(75);
  });

  it("resumes after last_event_id", async () => {
    const first = await wsSession(ws(`/ws/analyses/${ANALYSIS_ID}`), { headers: pro });
    const resumed = await wsSession(ws(`/ws/analyses/${ANALYSIS_ID}?last_event_id=${first.messages[4].id}`), { headers: pro });
    expect(resumed.messages).toEqual(first.messages.slice(5));
  });
});

describe("WebSocket /v1/stream (live session)", () => {
  const channel = "/v1/stream";

  it("starts with session.started, streams results, and on stop sends the rest, completed, and closes 1000", async () => {
    let stopped = false;
    const r = await wsSession(ws("/v1/stream?token=pk_test_demo_pro&media_type=audio&encoding=opus"), {
      onOpen: (s) => s.send(Buffer.alloc(3200)),
      onMessage: (m, s) => {
        if (m.event === "transcript.segment" && !stopped) {
          stopped = true;
          s.send(Buffer.alloc(3200));
          s.send(JSON.stringify({ type: "stop" }));
        }
      },
    });
    expect(r.code).toBe(1000);
    const [first, ...rest] = r.messages;
    expect(first.event).toBe("session.started");
    expect(first.data.analysis_id).toMatch(/^anl_[0-9A-Za-z]{26}$/);
    for (const m of r.messages) expectValidMessage(channel, m);
    const kinds = rest.map((m) => m.event);
    expect(kinds).toEqual(expect.arrayContaining(["transcript.partial", "transcript.segment", "signal", "alert"]));
    expect(kinds.indexOf("transcript.partial")).toBeLessThan(kinds.indexOf("transcript.segment"));
    expect(kinds.slice(-2)).toEqual(["status", "completed"]);
    const completed = rest.at(-1).data;
    expect(completed).toMatchObject({ id: first.data.analysis_id, status: "completed", source: { type: "stream", content_type: "audio/opus" } });
    expect(r.messages.map((m) => m.id)).toEqual(r.messages.map((m) => m.id).sort());
  });

  it("control frames it reads are the AsyncAPI document's client messages", () => {
    for (const type of ["stop", "cancel", "keep_alive"]) expectValidMessage(channel, { type } as never, type);
  });

  it("on cancel sends status canceled and closes 1000", async () => {
    const r = await wsSession(ws("/v1/stream"), { headers: pro, onOpen: (s) => s.send(JSON.stringify({ type: "cancel" })) });
    expect(r.code).toBe(1000);
    expect(r.messages.at(-1)).toMatchObject({ event: "status", data: { status: "canceled" } });
  });

  it("ends an idle session with error and 1008, and an unreadable control frame likewise", async () => {
    const idle = await wsSession(ws("/v1/stream"), { headers: pro }); // sends nothing
    // The 200 ms idle time-out of this test gateway, not 30 s.
    expect(idle.code).toBe(1008);
    const bad = await wsSession(ws("/v1/stream"), { headers: pro, onOpen: (s) => s.send("hello") });
    expect(bad.code).toBe(1008);
    expect(bad.messages.at(-1)).toMatchObject({ event: "error", data: { detail: expect.stringContaining("stop") } });
    for (const m of bad.messages) expectValidMessage(channel, m);
  });

  it("closes with 1009 on a binary frame over 64 KiB", async () => {
    const r = await wsSession(ws("/v1/stream"), { headers: pro, onOpen: (s) => s.send(Buffer.alloc(64 * 1024 + 1)) });
    expect(r.code).toBe(1009);
  });
});

describe("WebSocket refusals happen before the upgrade, as JSON errors with rate-limit headers", () => {
  const refused = (url: string, headers?: Record<string, string>) => wsSession(url, { headers }).then(() => ({ status: 101, body: null as any, headers: {} as any }), (e) => e);

  it("401 without credentials, 403 when frozen, 422 for a bad query parameter, 429 over the limit", async () => {
    const noCreds = await refused(ws("/v1/stream"));
    expect([noCreds.status, schemaErrors("Error", noCreds.body)]).toEqual([401, []]);
    expect(noCreds.headers["x-ratelimit-limit"]).toMatch(/^\d+$/);
    expect((await refused(ws("/v1/stream?token=pk_test_demo_frozen"))).status).toBe(403);
    const bad = await refused(ws("/v1/stream?token=pk_test_demo_pro&encoding=mp3"));
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "encoding"]);
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await refused(ws(`/ws/analyses/${ANALYSIS_ID}?token=${limited.key}`))).status);
    expect(results).toEqual([101, 101, 429]);
  });

  it("a plain GET of a WebSocket endpoint answers the 426 Upgrade Required the contract declares", async () => {
    const declared = doc.paths["/v1/stream"].get.responses["426"];
    expect(declared?.$ref).toBe("#/components/responses/UpgradeRequired");
    expect(doc.paths["/ws/analyses/{analysis_id}"].get.responses["426"]?.$ref).toBe("#/components/responses/UpgradeRequired");
    const response = doc.components.responses.UpgradeRequired;
    for (const url of ["/v1/stream", `/ws/analyses/${ANALYSIS_ID}`]) {
      const r = await getJson(`${g.url}${url}`, { headers: pro });
      expect(r.status, url).toBe(426);
      expect(schemaErrors("Error", r.body), url).toEqual([]);
      for (const [name, raw] of Object.entries<{ required?: boolean; schema?: { const?: string } }>(response.headers)) {
        // Header components (the X-RateLimit-* counters, Access-Control-Allow-Origin) are $refs.
        const header = deref<{ schema?: { const?: string; pattern?: string } }>(raw);
        if (header.schema?.const) expect(r.headers.get(name), `${url} ${name}`).toBe(header.schema.const);
        else if (header.schema?.pattern) expect(r.headers.get(name), `${url} ${name}`).toMatch(new RegExp(header.schema.pattern)); // X-Request-Id
        else expect(r.headers.get(name), `${url} ${name}`).toMatch(/^\d+$/);
      }
    }
  });

  it("an upgrade on a REST path is refused with 400", async () => {
    expect((await refused(ws("/v1/analyses"), pro)).status).toBe(400);
  });
});

describe("shutdown", () => {
  it("closes open WebSockets with 1012 (service restart) and ends SSE streams with a reconnect hint when the gateway closes", async () => {
    const g2 = await startGateway({ streamIntervalMs: 60_000, stepMs: 60_000 });
    const socket = new WebSocket(`${g2.url.replace("http", "ws")}/v1/stream`, { headers: pro });
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    await new Promise((resolve) => socket.on("message", resolve));
    // The demo workspace's analysis still processing: its stream stays open.
    const sse = await fetch(`${g2.url}/v1/analysis/anl_01HZXB3M5N7P9Q1R3S5T7V9W2X/stream`, { headers: pro });
    const ended = sse.arrayBuffer();
    await g2.close();
    expect(await closed).toBe(1012);
    // The stream ended, its last lines telling an EventSource to reconnect (elsewhere) with Last-Event-ID.
    expect(new TextDecoder().decode(await ended)).toMatch(/\nretry: 1000\n: the server restarts: reconnect with Last-Event-ID\n\n$/);
    expect((await getJson(`${g2.url}/health`).catch((e) => e)) instanceof Error).toBe(true);
  });
});
