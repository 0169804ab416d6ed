// SIGTERM drains a replica (decision SB11), over real HTTP against a gateway process: new connections are refused at
// once (a balancer sends them to another replica), an open SSE stream ends with a reconnect hint (`retry:` and a
// comment) after its events, a WebSocket closes with 1012 (service restart), a write in flight is still answered,
// and the process exits 0.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startReplica, type Replica } from "../../../scripts/lib/replicas.js";

const KEY = "pk_test_demo_pro";
/** The demo workspace's analysis that is still processing: with a long step, its streams stay open. */
const PROCESSING = "anl_01HZXB3M5N7P9Q1R3S5T7V9W2X";

/** A POST whose body is sent in two halves: `finish()` sends the second and resolves with the answer. */
function halfSentPost(base: string, path: string, body: string) {
  const url = new URL(path, base);
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "X-API-Key": KEY, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } });
  const answer = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
    });
    req.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { sent: new Promise((r) => req.once("socket", (s: net.Socket) => s.once("connect", r))), finish: () => (req.end(body.slice(half)), answer) };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(false)));
    s.on("error", () => resolve(true));
  });
}

describe("SIGTERM drains a replica", () => {
  let replica: Replica;

  beforeAll(async () => {
    replica = await startReplica([], { MOCK_STEP_MS: "600000" });
  }, 120_000);

  afterAll(() => replica?.kill());

  it("refuses new connections, ends streams with a reconnect hint, closes sockets with 1012, answers the write in flight, exits 0", async () => {
    const base = replica.url;
    const sse = await fetch(`${base}/v1/analysis/${PROCESSING}/stream`, { headers: { "X-API-Key": KEY } });
    expect(sse.status).toBe(200);
    const sseText = sse.text();
    const socket = new WebSocket(`${base.replace("http", "ws")}/ws/analyses/${PROCESSING}?token=${KEY}`);
    const wsClosed = new Promise<[number, string]>((resolve) => socket.on("close", (code, reason) => resolve([code, reason.toString()])));
    await new Promise((r) => socket.once("message", r));
    const post = halfSentPost(base, "/v1/boards", JSON.stringify({ name: "Written while draining" }));
    await post.sent;
    const exited = new Promise<number | null>((resolve) => replica.child.once("exit", (code) => resolve(code)));
    replica.child.kill("SIGTERM");
    expect(await wsClosed).toEqual([1012, "service restart: reconnect with last_event_id"]);
    const text = await sseText;
    expect(text).toMatch(/^id: evt_/);
    expect(text.endsWith("retry: 1000\n: the server restarts: reconnect with Last-Event-ID\n\n")).toBe(true);
    expect(await refused(Number(new URL(base).port))).toBe(true);
    const answer = await post.finish();
    expect(answer.status, answer.body).toBe(201);
    expect(answer.connection).toBe("close");
    expect(JSON.parse(answer.body)).toMatchObject({ name: "Written while draining" });
    expect(await exited, replica.output()).toBe(0);
  }, 60_000);
});
