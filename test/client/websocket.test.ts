import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { createClient, InsecureTransportError, type ClientOptions } from "../../src/client/index.js";
import { eventSourceUrl } from "../../src/client/streaming.js";
import { isLoopbackHost, openWebSocket, webSocketUrl, whenOpen } from "../../src/client/websocket.js";
import { API_KEY, caught } from "./helpers.js";

const client = (baseUrl: string, extra: Partial<ClientOptions> = {}) => createClient({ baseUrl, apiKey: API_KEY, ...extra } as ClientOptions);
const ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";

describe("token URLs (interface specification, rule 7)", () => {
  it("builds wss:// URLs with the token and the typed parameters", async () => {
    const c = client("https://api.example.test/");
    expect(await webSocketUrl(c, "/v1/stream", { query: { encoding: "opus", sample_rate: 48000 } })).toBe(
      `wss://api.example.test/v1/stream?encoding=opus&sample_rate=48000&token=${API_KEY}`,
    );
    expect(await webSocketUrl(c, "/ws/analyses/{analysis_id}", { path: { analysis_id: ID }, query: { last_event_id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9K0" } })).toBe(
      `wss://api.example.test/ws/analyses/${ID}?last_event_id=evt_01HZX8E1V2N3T4S5Q6R7P8M9K0&token=${API_KEY}`,
    );
    expect(await eventSourceUrl(c, ID)).toBe(`https://api.example.test/v1/analysis/${ID}/stream?token=${API_KEY}`);
  });

  it("puts the current result of a token function into the URL", async () => {
    let n = 0;
    const c = createClient({ baseUrl: "https://api.example.test", token: async () => `jwt.token.v${++n}` });
    expect(await webSocketUrl(c, "/v1/stream")).toBe("wss://api.example.test/v1/stream?token=jwt.token.v1");
    expect(await eventSourceUrl(c, ID)).toMatch(/token=jwt\.token\.v2$/);
  });

  it("refuses a non-TLS URL to a remote host, without showing the token", async () => {
    for (const base of ["http://api.example.test", "http://10.0.0.8:4010", "http://127.0.0.1.nip.io", "http://localhost.example.com", "http://0.0.0.0:4010", "http://[::ffff:127.0.0.1]"]) {
      const c = client(base);
      for (const attempt of [webSocketUrl(c, "/v1/stream"), eventSourceUrl(c, ID), openWebSocket(c, "/v1/stream")]) {
        const e = await caught(attempt);
        expect(e, base).toBeInstanceOf(InsecureTransportError);
        expect((e as Error).message).not.toContain(API_KEY);
        expect((e as Error).message).toMatch(/refusing to put a token into (ws|http):\/\//);
      }
    }
  });

  it("allows plain ws:/http: to loopback hosts only", async () => {
    for (const [base, host] of [
      ["http://127.0.0.1:4010", "127.0.0.1:4010"],
      ["http://127.8.9.10", "127.8.9.10"],
      ["http://localhost:4010", "localhost:4010"],
      ["http://[::1]:4010", "[::1]:4010"],
      ["http://2130706433:4010", "127.0.0.1:4010"], // the URL parser normalises IPv4 forms
    ]) {
      expect(await webSocketUrl(client(base!), "/v1/stream")).toBe(`ws://${host}/v1/stream?token=${API_KEY}`);
    }
  });

  it("isLoopbackHost takes URL hostnames", () => {
    expect(["localhost", "LOCALHOST", "127.0.0.1", "127.255.0.1", "[::1]", "localhost."].map(isLoopbackHost)).toEqual([true, true, true, true, true, true]);
    expect(["128.0.0.1", "127.0.0.1.example", "::1", "[::2]", "example.com", ""].map(isLoopbackHost)).toEqual([false, false, false, false, false, false]);
  });
});

describe("openWebSocket", () => {
  const servers: WebSocketServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  async function server(options: ConstructorParameters<typeof WebSocketServer>[0] = {}) {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, ...options });
    servers.push(wss);
    await new Promise((r) => wss.once("listening", r));
    return { wss, base: `http://127.0.0.1:${(wss.address() as AddressInfo).port}` };
  }

  it("opens the live-stream socket in Node (platform WebSocket or `ws`), token in the query", async () => {
    const { wss, base } = await server();
    const urls: string[] = [];
    wss.on("connection", (socket, req) => {
      urls.push(req.url!);
      socket.send(JSON.stringify({ event: "session.started", id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9K0", data: { analysis_id: ID } }));
    });
    const ws = await openWebSocket(client(base), "/v1/stream", { params: { query: { encoding: "pcm_s16le" } } });
    const first = new Promise<string>((resolve) => ws.addEventListener("message", (e) => resolve(String(e.data))));
    await whenOpen(ws);
    expect(JSON.parse(await first)).toMatchObject({ event: "session.started", data: { analysis_id: ID } });
    expect(urls).toEqual([`/v1/stream?encoding=pcm_s16le&token=${API_KEY}`]);
    ws.close();
  });

  it("opens /ws/analyses/{analysis_id} with its path parameter", async () => {
    const { wss, base } = await server();
    const urls: string[] = [];
    wss.on("connection", (_s, req) => urls.push(req.url!));
    const ws = await whenOpen(await openWebSocket(client(base), "/ws/analyses/{analysis_id}", { params: { path: { analysis_id: ID } } }));
    expect(urls).toEqual([`/ws/analyses/${ID}?token=${API_KEY}`]);
    ws.close();
  });

  it("rejects, without the token in the message, when the server refuses the upgrade", async () => {
    const { base } = await server({ verifyClient: (_info: unknown, done: (ok: boolean, code?: number) => void) => done(false, 401) });
    const e = await caught(openWebSocket(client(base), "/v1/stream").then((ws) => whenOpen(ws)));
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/WebSocket/);
    expect((e as Error).message).not.toContain(API_KEY);
  });

  it("uses an injected WebSocket class (as in a browser), and the signal closes it", async () => {
    const made: FakeSocket[] = [];
    class FakeSocket extends EventTarget {
      closed = false;
      constructor(readonly url: string) {
        super();
        made.push(this);
      }
      close() {
        this.closed = true;
      }
    }
    const ctrl = new AbortController();
    const c = client("https://api.example.test", { WebSocket: FakeSocket as unknown as ClientOptions["WebSocket"] });
    const socket = await openWebSocket(c, "/v1/stream", { signal: ctrl.signal });
    const opening = caught(whenOpen(socket, ctrl.signal));
    expect(made.map((s) => [s.url, s.closed])).toEqual([[`wss://api.example.test/v1/stream?token=${API_KEY}`, false]]);
    ctrl.abort();
    expect(((await opening) as Error).name).toBe("AbortError");
    expect(made[0]!.closed).toBe(true);
    await expect(openWebSocket(c, "/v1/stream", { signal: ctrl.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(made).toHaveLength(1);
  });
});
