import { describe, expect, expectTypeOf, it } from "vitest";
import { ApiError, DEFAULT_TIMEOUT_MS, StreamError, type AnalysisStreamEvent } from "../../src/client/index.js";
import { streamAnalysisEvents } from "../../src/client/streaming.js";
import { API_KEY, deref, doc, hang, json, testClient, type Call } from "./helpers.js";

const ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const media = doc.paths["/v1/analysis/{id}/stream"].get.responses["200"].content["text/event-stream"];
/** The contract's own examples of the stream's events. */
const EXAMPLES: AnalysisStreamEvent[] = Object.values<any>(media.examples).map((e) => deref(e).value);

const sse = (e: { event: string; id?: string; data: unknown }) =>
  `event: ${e.event}\n${e.id ? `id: ${e.id}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`;
const evt = (n: number) => `evt_01HZX8E1V2N3T4S5Q6R7P8M9K${n}`;
const status = (n: number, s: string, progress = 50): AnalysisStreamEvent =>
  ({ event: "status", id: evt(n), data: { analysis_id: ID, status: s, progress } }) as AnalysisStreamEvent;
const completed = (n: number) => ({ event: "completed", id: evt(n), data: { id: ID, status: "completed" } });

/** A response body the test writes to as it goes. */
function liveBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (state.cancelled = true),
  });
  return {
    state,
    response: () => new Response(stream, { headers: { "Content-Type": "text/event-stream" } }),
    push: (text: string | Uint8Array) => controller.enqueue(typeof text === "string" ? new TextEncoder().encode(text) : text),
    close: () => controller.close(),
    fail: (e: unknown) => controller.error(e),
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("streamAnalysisEvents (SSE)", () => {
  it("parses events split across chunks at every byte, typed by AnalysisStreamEvent", async () => {
    const last = { event: "error", id: evt(9), data: { detail: "Média illisible ✓ 成田" } }; // multi-byte characters too
    const bytes = new TextEncoder().encode(EXAMPLES.map(sse).join("") + sse(last));
    const body = liveBody();
    for (let i = 0, size = 1; i < bytes.length; i += size, size = (size % 7) + 1) body.push(bytes.slice(i, i + size));
    body.close();
    const { client, calls } = testClient(() => body.response());
    const events = await collect(streamAnalysisEvents(client, ID));
    expectTypeOf(events).toEqualTypeOf<AnalysisStreamEvent[]>();
    expect(EXAMPLES.length).toBeGreaterThan(0);
    expect(events).toEqual([...EXAMPLES, last]);
    // authenticated by header, not by a token in the URL
    const call = calls[0]!;
    expect(call.url.pathname).toBe(`/v1/analysis/${ID}/stream`);
    expect(call.url.search).toBe("");
    expect(call.headers.get("X-API-Key")).toBe(API_KEY);
    expect(call.headers.get("Accept")).toBe("text/event-stream");
  });

  it("ends quietly on 204 (a finished analysis whose last event lastEventId names), without reconnecting", async () => {
    const { client, calls } = testClient(() => new Response(null, { status: 204 }));
    expect(await collect(streamAnalysisEvents(client, ID, { lastEventId: evt(9) }))).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.get("Last-Event-ID")).toBe(evt(9));
  });

  it("skips comments, keep-alives and event kinds the contract does not know", async () => {
    const body = liveBody();
    body.push(": keep-alive\n\n");
    body.push(sse(status(1, "processing", 10)));
    body.push(":another comment\n\n" + sse({ event: "debug.ping", id: evt(2), data: {} }));
    body.push(": keep-alive\n\n" + sse(completed(3)));
    const { client } = testClient(() => body.response());
    const events = await collect(streamAnalysisEvents(client, ID));
    expect(events.map((e) => e.id)).toEqual([evt(1), evt(3)]);
  });

  it("ends after an error event (yielded, typed) and closes the connection though the server keeps it open", async () => {
    const body = liveBody();
    body.push(sse(status(1, "failed", 40)) + sse({ event: "error", id: evt(2), data: { detail: "The media URL answered 403 Forbidden." } }));
    const { client } = testClient(() => body.response());
    const events = await collect(streamAnalysisEvents(client, ID));
    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    if (last.event === "error") {
      expectTypeOf(last.data).toEqualTypeOf<{ detail: string }>();
      expect(last.data.detail).toBe("The media URL answered 403 Forbidden.");
    }
    expect(body.state.cancelled).toBe(true);
  });

  it("ends after a status event with canceled", async () => {
    const body = liveBody();
    body.push(sse(status(1, "canceled", 40)));
    const { client } = testClient(() => body.response());
    expect((await collect(streamAnalysisEvents(client, ID))).map((e) => e.event)).toEqual(["status"]);
  });

  it("stops cleanly when aborted while waiting for the next event", async () => {
    const body = liveBody();
    body.push(sse(status(1, "processing", 10)));
    const { client, clock } = testClient(() => body.response());
    const ctrl = new AbortController();
    const seen: AnalysisStreamEvent[] = [];
    const done = (async () => {
      for await (const e of streamAnalysisEvents(client, ID, { signal: ctrl.signal })) seen.push(e);
    })();
    await clock.settle();
    expect(seen).toHaveLength(1);
    ctrl.abort();
    await expect(done).resolves.toBeUndefined();
    expect(body.state.cancelled).toBe(true);
    await clock.advance(DEFAULT_TIMEOUT_MS); // the opening timeout's timer fires once, finds nothing to do
    expect(clock.pending).toEqual([]);
  });

  it("also stops cleanly when aborted while the stream is opening", async () => {
    const { client, clock } = testClient(hang);
    const ctrl = new AbortController();
    const done = collect(streamAnalysisEvents(client, ID, { signal: ctrl.signal }));
    await clock.settle();
    ctrl.abort();
    await expect(done).resolves.toEqual([]);
    await clock.advance(DEFAULT_TIMEOUT_MS);
    expect(clock.pending).toEqual([]);
  });

  it("reconnects after a drop, resuming with Last-Event-ID and the server's retry delay", async () => {
    const first = liveBody();
    first.push("retry: 2500\n\n" + sse(status(1, "processing", 10)) + sse(status(2, "processing", 20)));
    const second = liveBody();
    second.push(sse(status(3, "completed", 100)) + sse(completed(4)));
    const bodies = [first, second];
    const { client, clock, calls } = testClient((_c: Call, n: number) => bodies[n - 1]!.response(), { timeoutMs: 0 });
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of streamAnalysisEvents(client, ID)) seen.push(e.id);
    })();
    await clock.settle();
    first.fail(new TypeError("terminated")); // the connection breaks
    expect(await clock.untilTimer()).toBe(2500);
    await clock.advance(2500);
    await done;
    expect(seen).toEqual([evt(1), evt(2), evt(3), evt(4)]);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.headers.has("Last-Event-ID")).toBe(false);
    expect(calls[1]!.headers.get("Last-Event-ID")).toBe(evt(2));
  });

  it("gives up with a StreamError when the stream keeps ending early", async () => {
    const { client, clock } = testClient(() => new Response(": nothing\n\n", { headers: { "Content-Type": "text/event-stream" } }), {
      retry: { random: () => 0 },
      timeoutMs: 0, // so the only timers are the reconnect waits
    });
    const done = collect(streamAnalysisEvents(client, ID, { reconnect: { maxAttempts: 2 } })).catch((e: unknown) => e);
    for (let i = 0; i < 2; i++) await clock.advance(await clock.untilTimer());
    expect(await done).toBeInstanceOf(StreamError);
  });

  it("rejects a data field that is not JSON with a StreamError", async () => {
    const { client } = testClient(() => new Response(`event: status\nid: ${evt(1)}\ndata: {not json\n\n`, { headers: { "Content-Type": "text/event-stream" } }));
    await expect(collect(streamAnalysisEvents(client, ID))).rejects.toThrow(/not JSON/);
  });

  it("refuses a 200 that is not an event stream (a proxy's page, say)", async () => {
    const { client, calls } = testClient(() => json(200, { detail: "hello" }));
    await expect(collect(streamAnalysisEvents(client, ID))).rejects.toThrow(/answered application\/json, not text\/event-stream/);
    expect(calls).toHaveLength(1);
  });

  it("throws the typed error when the stream cannot open", async () => {
    const { client } = testClient(() => json(404, { detail: "Resource not found." }), { retry: false });
    const error = await collect(streamAnalysisEvents(client, ID)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, path: `/v1/analysis/${ID}/stream` });
  });
});
