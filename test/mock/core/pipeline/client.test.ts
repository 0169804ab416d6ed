// The project's own client (src/index.ts) against the mock: REST with its errors, the SSE iterator, the
// WebSocket helper, and webhook deliveries verified with verifyWebhookSignature.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  createClient,
  openWebSocket,
  RateLimitError,
  readRateLimit,
  streamAnalysisEvents,
  unwrap,
  ValidationError,
  verifyWebhookSignature,
  WebhookVerificationError,
  whenOpen,
} from "../../../../src/index.js";
import { ANALYSIS_ID, contract, freshKey, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
const limited = freshKey("pro", { rate_limit_rpm: 1 });
beforeAll(async () => {
  g = await startGateway({ extraKeys: [limited] });
});
afterAll(() => g.close());

const client = (apiKey = "pk_test_demo_pro") => createClient({ baseUrl: g.url, apiKey, retry: false });

/** Collects the JSON messages of a client-opened WebSocket until the server closes it. */
function collect(ws: WebSocket, onMessage?: (m: any) => void): Promise<{ messages: any[]; code: number }> {
  const messages: any[] = [];
  return new Promise((resolve) => {
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(String(e.data));
      messages.push(m);
      onMessage?.(m);
    });
    ws.addEventListener("close", (e) => resolve({ messages, code: e.code }));
  });
}

describe("the client against the mock", () => {
  it("GET /v1/analyses returns the workspace's analyses (the contract's examples), with the rate-limit headers readable", async () => {
    const { data, response } = await client().GET("/v1/analyses", { params: { query: { limit: 5 } } });
    const example = contract.doc.components.examples.AnalysisList.value;
    expect(data!.data.filter((a) => example.data.some((e: { id: string }) => e.id === a.id))).toEqual(example.data.map((a: object) => ({ ...a, workspace_id: "ws_DemoPro00000" })));
    expect(readRateLimit(response)).toMatchObject({ limit: 150, remaining: 149, daily_limit: 10000, daily_remaining: 9999 });
  });

  it("the mock's 401, 422 and 429 arrive as the client's typed errors", async () => {
    const unknown = await unwrap(client("pk_test_nobody_has_this").GET("/v1/analyses")).catch((e) => e);
    expect(unknown).toBeInstanceOf(ApiError);
    expect([unknown.status, unknown.detail]).toEqual([401, "Invalid API key: it is not a known key."]);
    const invalid = await unwrap(client().GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "nope" } } })).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid.errors[0].loc).toEqual(["path", "analysis_id"]);
    const c = client(limited.key);
    await unwrap(c.GET("/v1/analyses"));
    const refused = await unwrap(c.GET("/v1/analyses")).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, error: "rate_limit_exceeded", limit: 1, window: "1 minute", retry_after: 30 });
  });

  it("streamAnalysisEvents yields the mock's SSE events, typed, and ends after completed", async () => {
    const events = [];
    for await (const e of streamAnalysisEvents(client(), ANALYSIS_ID)) events.push(e);
    expect(events[0]).toMatchObject({ event: "status", data: { status: "queued" } });
    expect(events.at(-1)).toMatchObject({ event: "completed", data: { id: ANALYSIS_ID, status: "completed" } });
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["transcript.segment", "signal", "alert"]));
  });

  it("streamAnalysisEvents resumes after lastEventId", async () => {
    const all = [];
    for await (const e of streamAnalysisEvents(client(), ANALYSIS_ID)) all.push(e);
    const rest = [];
    for await (const e of streamAnalysisEvents(client(), ANALYSIS_ID, { lastEventId: all[1]!.id })) rest.push(e);
    expect(rest).toEqual(all.slice(2));
  });

  it("openWebSocket plays /ws/analyses/{analysis_id} to the end", async () => {
    const ws = await openWebSocket(client(), "/ws/analyses/{analysis_id}", { params: { path: { analysis_id: ANALYSIS_ID } } });
    const { messages, code } = await collect(ws);
    expect(code).toBe(1000);
    expect(messages.at(-1).event).toBe("completed");
  });

  it("openWebSocket runs a live /v1/stream session, from session.started to completed", async () => {
    const ws = await openWebSocket(client(), "/v1/stream", { params: { query: { media_type: "audio", encoding: "pcm_s16le" } } });
    const done = collect(ws); // listening before the socket opens: no message is missed
    await whenOpen(ws);
    ws.send(new Uint8Array(3200));
    ws.send(JSON.stringify({ type: "stop" }));
    const { messages, code } = await done;
    expect(code).toBe(1000);
    expect(messages[0].event).toBe("session.started");
    expect(messages.at(-1)).toMatchObject({ event: "completed", data: { id: messages[0].data.analysis_id, status: "completed", source: { type: "stream" } } });
  });

  it("webhook deliveries from the mock verify with verifyWebhookSignature, with the secret of the 201", async () => {
    const receiver = await startReceiver();
    try {
      const { data: hook, response } = await client("pk_test_demo_starter").POST("/v1/webhooks", {
        body: { url: receiver.url, event_types: ["analysis.completed"] },
      });
      expect(response.status).toBe(201);
      await receiver.received(1);
      const d = receiver.deliveries[0]!;
      const now = g.clock.now();
      await expect(verifyWebhookSignature({ payload: d.raw, headers: d.headers as Record<string, string>, secret: hook!.secret, now })).resolves.toBeUndefined();
      await expect(verifyWebhookSignature({ payload: d.raw, headers: d.headers as Record<string, string>, secret: "whsec_" + "0".repeat(32), now })).rejects.toBeInstanceOf(
        WebhookVerificationError,
      );

      await client("pk_test_demo_starter").POST("/v1/webhooks/{webhook_id}/test", { params: { path: { webhook_id: hook!.id } }, body: { event_type: "alert.triggered" } });
      await receiver.received(2);
      const t = receiver.deliveries[1]!;
      expect(t.body.type).toBe("alert.triggered");
      await expect(verifyWebhookSignature({ payload: t.raw, headers: t.headers as Record<string, string>, secret: hook!.secret, now })).resolves.toBeUndefined();
    } finally {
      await receiver.close();
    }
  });
});
