// The same rules with Node's own fetch (undici) against a real HTTP server on 127.0.0.1, so that what the
// scripted fetch of the other tests stands in for is checked once for real: re-sent bodies, streamed uploads,
// aborting a timed-out attempt, and an SSE connection closed on abort.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, DEFAULT_TIMEOUT_MS, TimeoutError, type ClientOptions } from "../../src/client/index.js";
import { streamAnalysisEvents } from "../../src/client/streaming.js";
import { API_KEY, caught, FakeClock } from "./helpers.js";

interface Seen {
  method: string;
  url: string;
  body: string;
  headers: http.IncomingHttpHeaders;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen, n: number) => void) {
  const seen: Seen[] = [];
  let onClose!: (url: string) => void;
  let onReceived!: () => void;
  /** Resolves when the server has read its first request. */
  const received = new Promise<void>((r) => (onReceived = r));
  /** The URL of the first request whose connection closed. */
  const closed = new Promise<string>((r) => (onClose = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method!, url: req.url!, body: Buffer.concat(chunks).toString("utf8"), headers: req.headers };
      seen.push(s);
      res.on("close", () => onClose(req.url!));
      onReceived();
      handle(req, res, s, seen.length);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const clock = new FakeClock();
  const client = (o: Partial<ClientOptions> = {}) =>
    createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: API_KEY, timers: clock, ...o } as ClientOptions);
  return { seen, closed, received, clock, client };
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));

describe("with Node's fetch and a real server", () => {
  it("re-sends a JSON body intact after a 500", async () => {
    const { seen, clock, client } = await serve((_req, res, _s, n) => (n === 1 ? json(res, 500, { detail: "boom" }) : json(res, 202, { id: "anl_1" })));
    const body = { media_url: "https://media.example.com/a.wav" as const, media_type: "audio" as const, title: "naïve ✓" };
    const pending = client({ retry: { random: () => 0 }, timeoutMs: 0 }).POST("/v1/analyses", { body });
    await clock.advance(await clock.untilTimer());
    expect((await pending).response.status).toBe(202);
    expect(seen.map((s) => [s.method, s.body, s.headers["x-api-key"]])).toEqual([
      ["POST", JSON.stringify(body), API_KEY],
      ["POST", JSON.stringify(body), API_KEY],
    ]);
  });

  it("streams a ReadableStream upload once, chunked, and does not retry it", async () => {
    const { seen, clock, client } = await serve((_req, res) => json(res, 500, { detail: "boom" }));
    const parts = ["chunk-1;", "chunk-2;", "chunk-3"];
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const p = parts.shift();
        if (p === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(p));
      },
    });
    const { response } = await client().streamUpload({ query: { media_type: "audio", title: "live" }, body });
    expect(response.status).toBe(500);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: "/v1/analysis/stream-upload?media_type=audio&title=live", body: "chunk-1;chunk-2;chunk-3" });
    expect(seen[0]!.headers["transfer-encoding"]).toBe("chunked");
    expect(seen[0]!.headers["content-type"]).toBe("application/octet-stream");
    await clock.advance(DEFAULT_TIMEOUT_MS); // the attempt's timer fires once at its old deadline, finds nothing to do
    expect(clock.pending).toEqual([]);
  });

  it("aborts a timed-out attempt: the server sees the connection close", async () => {
    const { closed, received, clock, client } = await serve(() => {}); // never answers
    const settled = caught(client({ retry: false, timeoutMs: 2000 }).GET("/v1/analyses"));
    await received;
    expect(clock.pending).toEqual([2000]);
    await clock.advance(2000);
    expect(await settled).toBeInstanceOf(TimeoutError);
    expect(await closed).toBe("/v1/analyses");
  });

  it("reads SSE from a live connection and closes it when aborted", async () => {
    const { closed, client, seen } = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(`: keep-alive\n\nevent: status\nid: evt_01HZX8E1V2N3T4S5Q6R7P8M9K1\n`);
      res.write(`data: {"analysis_id":"anl_01HZX4A9B7C5D3E1F2G4H6J8K0","status":"processing","progress":7}\n\n`);
    });
    const ctrl = new AbortController();
    const ids: string[] = [];
    for await (const e of streamAnalysisEvents(client(), "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", { signal: ctrl.signal })) {
      ids.push(e.id);
      ctrl.abort();
    }
    expect(ids).toEqual(["evt_01HZX8E1V2N3T4S5Q6R7P8M9K1"]);
    expect(seen[0]!.headers.accept).toBe("text/event-stream");
    expect(await closed).toBe("/v1/analysis/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/stream");
  });
});
