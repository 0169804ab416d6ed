// The client's SSE iterator (streamAnalysisEvents) over a real socket: events split across TCP writes anywhere —
// byte by byte, inside multi-byte UTF-8 characters, between CR and LF — with comments, keep-alives, a BOM,
// multi-line data, `retry:` and unknown event kinds mixed in, give exactly the contract's typed events (a
// property over random splits); a stream quiet for longer than the client's timeout is not cut (keep-alives only);
// a server `error` event is surfaced, typed, and ends the iteration; aborting stops it cleanly and the server
// sees the connection close.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type AnalysisStreamEvent } from "../../src/client/index.js";
import { streamAnalysisEvents } from "../../src/client/streaming.js";
import { API_KEY, deref, doc, FakeClock } from "./helpers.js";
import { faultServer, type FaultServer } from "../helpers/robustness/fault-server.js";

const ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const media = doc.paths["/v1/analysis/{id}/stream"].get.responses["200"].content["text/event-stream"];
/** The contract's own examples of the stream's events, plus text with 2-, 3- and 4-byte UTF-8 characters. */
const EVENTS: AnalysisStreamEvent[] = [
  ...Object.values<any>(media.examples).map((e) => deref(e).value),
  { event: "transcript.segment", id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9Z1", data: { id: "seg_x", start: 1, end: 2, speaker_label: "SPEAKER_00", speaker_id: null, text: "Größe naïve — 成田空港 😀🎉 ✓", confidence: 0.9, words: [] } },
] as AnalysisStreamEvent[];
const FINAL = { event: "completed", id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9Z9", data: { id: ID, status: "completed" } } as unknown as AnalysisStreamEvent;

/** The events as a server could send them: with noise the client must skip, in one of the allowed line endings. */
function streamText(events: AnalysisStreamEvent[], eol: "\n" | "\r\n" | "\r"): string {
  const lines: string[] = ["\ufeff: stream opened", "retry: 2500", ""];
  events.forEach((e, i) => {
    lines.push(": keep-alive", "");
    if (i === 1) lines.push("event: debug.unknown_kind", 'data: {"ignored": true}', "");
    lines.push(`id: ${e.id}`, `event: ${e.event}`);
    // A data field over several `data:` lines is joined with newlines: still the same JSON.
    const json = JSON.stringify(e.data, null, i % 2 ? 1 : undefined);
    for (const l of json.split("\n")) lines.push(`data: ${l}`);
    lines.push("");
  });
  return lines.join(eol) + eol;
}

/** `bytes` cut at the given (sorted, distinct) offsets. */
const cut = (bytes: Buffer, at: number[]) => [0, ...at, bytes.length].slice(1).map((end, i, a) => bytes.subarray(i === 0 ? 0 : a[i - 1]!, end));

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function sse(chunks: Buffer[], end = false) {
  const server = await faultServer(() => ({ kind: "chunks", status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" }, chunks, end }));
  servers.push(server);
  const clock = new FakeClock();
  const client = createClient({ baseUrl: server.url, apiKey: API_KEY, timers: clock, timeoutMs: 1000, retry: false });
  return { server, clock, client };
}

async function collect(it: AsyncIterable<AnalysisStreamEvent>): Promise<AnalysisStreamEvent[]> {
  const out: AnalysisStreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe("streamAnalysisEvents over a real socket", () => {
  it("reads a stream sent one byte per write (every multi-byte character split), CRLF line endings", async () => {
    const bytes = Buffer.from(streamText([...EVENTS, FINAL], "\r\n"));
    expect(bytes.length).toBeGreaterThan(Buffer.from(streamText([...EVENTS, FINAL], "\r\n"), "latin1").length - 100); // multi-byte text inside
    const { server, client } = await sse(cut(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)));
    expect(await collect(streamAnalysisEvents(client, ID, { reconnect: false }))).toEqual([...EVENTS, FINAL]);
    await server.clientClosed(1); // the stream stays open on the server's side: the client closed it after `completed`
  });

  it("gives the same typed events however the bytes are split and whatever the line endings (property)", async () => {
    const texts = (["\n", "\r\n", "\r"] as const).map((eol) => Buffer.from(streamText([...EVENTS, FINAL], eol)));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 2 }), fc.uniqueArray(fc.integer({ min: 1, max: 4000 }), { maxLength: 120 }), async (which, offsets) => {
        const bytes = texts[which]!;
        const at = offsets.filter((o) => o < bytes.length).sort((a, b) => a - b);
        const { client } = await sse(cut(bytes, at), true);
        expect(await collect(streamAnalysisEvents(client, ID, { reconnect: false }))).toEqual([...EVENTS, FINAL]);
        await servers.pop()!.close();
      }),
      { numRuns: 40, seed: Number(process.env.FUZZ_SEED ?? 99) },
    );
  }, 60_000);

  it("delivers an event ended by a lone CR at once, while the server keeps the connection open", { timeout: 5000 }, async () => {
    const bytes = Buffer.from(streamText([...EVENTS, FINAL], "\r"));
    const { server, client } = await sse([bytes.subarray(0, 300), bytes.subarray(300)]); // never ended by the server
    expect(await collect(streamAnalysisEvents(client, ID, { reconnect: false }))).toEqual([...EVENTS, FINAL]);
    await server.clientClosed(1);
  });

  it("keeps a stream open through keep-alives, longer than the client's timeout", async () => {
    const { server, clock, client } = await sse([Buffer.from(": keep-alive\n\n"), Buffer.from(": keep-alive\n\n")]);
    let opened!: () => void;
    const headersIn = new Promise<void>((r) => (opened = r));
    client.use({ onResponse: () => void opened() }); // runs once the headers are in
    const ctrl = new AbortController();
    const done = collect(streamAnalysisEvents(client, ID, { signal: ctrl.signal }));
    await headersIn;
    await clock.advance(60_000); // the opening timeout ended with the headers: nothing cuts the quiet stream
    expect(server.closedByClient).toBe(0);
    expect(clock.pending).toEqual([]);
    ctrl.abort();
    expect(await done).toEqual([]);
    await server.clientClosed(1);
  });

  it("surfaces the server's error event, typed, as the last event, and closes the stream", async () => {
    const error = { event: "error", id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9E1", data: { detail: "The media could not be decoded: unsupported codec «x-ÿ»." } };
    const bytes = Buffer.from(streamText([EVENTS[0]!, error as AnalysisStreamEvent], "\n") + streamText([EVENTS[1]!], "\n"));
    const { server, client } = await sse(cut(bytes, [7, 100, 101, 102, bytes.length - 40]));
    const got = await collect(streamAnalysisEvents(client, ID));
    expect(got).toEqual([EVENTS[0], error]);
    const last = got.at(-1)!;
    if (last.event === "error") expect(last.data.detail).toContain("unsupported codec");
    await server.clientClosed(1);
    expect(server.requests).toHaveLength(1); // no reconnect after a final event
  });

  it("stops cleanly when aborted mid-stream: no error, no reconnect, and the server sees the close", async () => {
    const bytes = Buffer.from(streamText(EVENTS, "\n"));
    const { server, client } = await sse(cut(bytes, [10, 200, 300]));
    const ctrl = new AbortController();
    const seen: AnalysisStreamEvent[] = [];
    for await (const e of streamAnalysisEvents(client, ID, { signal: ctrl.signal })) {
      seen.push(e);
      ctrl.abort();
    }
    expect(seen).toEqual([EVENTS[0]]);
    await server.clientClosed(1);
    expect(server.requests).toHaveLength(1);
  });
});
