// Issue 47 (decision SH16 revised): revoking a credential ends every SSE stream and WebSocket it opened, at once:
// SSE with a final `error` event (the contract's AnalysisStreamErrorEvent), WebSocket with an `error` message and
// close code 1008. The analyses are queued under a paused clock, so nothing but the revocation can end the streams
// (their idle limit is a minute).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { call, getJson, schemaErrors, startStateful, wsSession, type TestGateway, type WsResult } from "../../../helpers/mock.js";

const analysis = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Q4 call" };
let g: TestGateway & { clock: SimulatedClock };
beforeAll(async () => (g = await startStateful({ limits: { streamIdleMs: 60_000 } })));
afterAll(() => g.close());

/** An open SSE stream: its messages so far, and a promise of all of them once the server ends it. */
async function openSse(path: string, headers: Record<string, string>) {
  const res = await fetch(g.url + path, { headers });
  expect(res.status).toBe(200);
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    return events;
  })();
  return { events, ended };
}

/** A WebSocket session, resolved when the server closes it; `opened` once the upgrade is done. */
function openWs(path: string, headers: Record<string, string>) {
  let opened!: () => void;
  const isOpen = new Promise<void>((r) => (opened = r));
  const done: Promise<WsResult> = wsSession(g.url.replace("http", "ws") + path, { headers, onOpen: () => opened() });
  return { isOpen, done };
}

function expectEndedByRevocation(events: EventSourceMessage[], detail: RegExp) {
  const last = events.at(-1)!;
  expect(last.event).toBe("error");
  const e = { event: last.event, id: last.id, data: JSON.parse(last.data) };
  expect(schemaErrors("AnalysisStreamErrorEvent", e)).toEqual([]);
  expect(e.data.detail).toMatch(detail);
}

function expectClosedByRevocation(r: WsResult, detail: RegExp) {
  expect(r.code).toBe(1008);
  expect(r.messages.at(-1)).toMatchObject({ event: "error", data: { detail: expect.stringMatching(detail) } });
  expect(schemaErrors("AnalysisStreamErrorEvent", r.messages.at(-1))).toEqual([]);
}

describe("revocation ends the credential's open streams", () => {
  it("DELETE /v1/keys/{id}: its SSE stream, analysis WebSocket and live session end; another key's stream stays", async () => {
    const made = await call(g.url, "POST", "/v1/keys", { body: { name: "streamer", environment: "test" } });
    expect(made.status).toBe(201);
    const key = made.body.secret as string;
    const id = (await call(g.url, "POST", "/v1/analyses", { key, body: analysis })).body.id as string;
    const sse = await openSse(`/v1/analysis/${id}/stream`, { "X-API-Key": key });
    const other = await openSse(`/v1/analysis/${id}/stream`, { "X-API-Key": "pk_test_demo_pro" });
    const ws = openWs(`/ws/analyses/${id}`, { "X-API-Key": key });
    const live = openWs(`/v1/stream?media_type=audio`, { "X-API-Key": key });
    await Promise.all([ws.isOpen, live.isOpen]);

    expect((await call(g.url, "DELETE", `/v1/keys/${made.body.id}`)).status).toBe(204);
    expectEndedByRevocation(await sse.ended, /API key has been revoked/);
    expectClosedByRevocation(await ws.done, /API key has been revoked/);
    const session = await live.done;
    expectClosedByRevocation(session, /API key has been revoked/);
    expect(session.messages[0].event).toBe("session.started");
    expect(other.events.some((e) => e.event === "error")).toBe(false); // still open: the demo key was not revoked
  });

  it("POST /v1/oauth/revoke: a bearer token's SSE stream and WebSocket end", async () => {
    const form = (path: string, fields: Record<string, string>) =>
      getJson(g.url + path, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
    const t = await form("/v1/oauth/token", { grant_type: "client_credentials", client_id: "northwind-crm-connector" });
    expect(t.status).toBe(200);
    const auth = { Authorization: `Bearer ${t.body.access_token}` };
    const id = (await call(g.url, "POST", "/v1/analyses", { body: analysis })).body.id as string;
    const sse = await openSse(`/v1/analysis/${id}/stream`, auth);
    const ws = openWs(`/ws/analyses/${id}`, auth);
    await ws.isOpen;

    expect((await form("/v1/oauth/revoke", { token: t.body.access_token })).status).toBe(200);
    expectEndedByRevocation(await sse.ended, /bearer token has been revoked/);
    expectClosedByRevocation(await ws.done, /bearer token has been revoked/);
  });
});
