// The client in a browser: src/index.ts bundled by esbuild for the browser platform (so a Node-only import
// fails the build), served from 127.0.0.1 and driven in Chromium with playwright-core (test/helpers/chromium.ts:
// Debian's when installed, else the one inside the @sparticuz/chromium npm package). It uses the
// browser's fetch streams, Web Crypto and native WebSocket (against a `ws` server on another loopback port).
import esbuild from "esbuild";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { launchChromiumContext } from "../helpers/chromium.js";

const ENTRY = fileURLToPath(new URL("../../src/index.ts", import.meta.url));

let browser: Awaited<ReturnType<typeof launchChromiumContext>> | undefined;
let server: http.Server;
let wss: WebSocketServer;
let origin: string;
let wsBase: string;
const wsUrls: string[] = [];

beforeAll(async () => {
  const bundle = await esbuild.build({ entryPoints: [ENTRY], bundle: true, format: "esm", platform: "browser", target: "es2022", write: false });
  const js = bundle.outputFiles[0]!.text;
  const page = `<!doctype html><script type="module">import * as avt from "/client.js"; window.avt = avt; window.ready = true;</script>`;
  server = http.createServer((req, res) => {
    if (req.url === "/client.js") res.writeHead(200, { "Content-Type": "text/javascript" }).end(js);
    else res.writeHead(200, { "Content-Type": "text/html" }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => wss.once("listening", r));
  wsBase = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  wss.on("connection", (socket, req) => {
    wsUrls.push(req.url!);
    socket.send(JSON.stringify({ event: "session.started", id: "evt_01HZX8E1V2N3T4S5Q6R7P8M9K0", data: { analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" } }));
  });

  browser = await launchChromiumContext();
}, 60_000);

afterAll(async () => {
  // Each step only if its setup got that far: a failed launch must report itself, not a crash in here.
  await browser?.close();
  if (wss) await new Promise((r) => wss.close(r));
  if (server) await new Promise((r) => server.close(r));
});

describe("in a browser", () => {
  it("lists, streams SSE events, verifies a webhook and opens a native WebSocket", { timeout: 60_000 }, async () => {
    const page = await browser!.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(origin);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);

    const result = await page.evaluate(async ({ wsBase }) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const avt = (window as any).avt;
      const seen: string[] = [];
      const enc = new TextEncoder();
      const fetch = async (input: Request, init?: RequestInit) => {
        const request = new Request(input, init);
        const url = new URL(request.url);
        seen.push(`${url.pathname}${url.search} ${request.headers.get("Authorization")}`);
        if (url.pathname.endsWith("/stream")) {
          const text =
            `: keep-alive\n\nevent: status\nid: evt_01HZX8E1V2N3T4S5Q6R7P8M9K1\ndata: {"analysis_id":"anl_1","status":"processing","progress":5}\n\n` +
            `event: error\nid: evt_01HZX8E1V2N3T4S5Q6R7P8M9K2\ndata: {"detail":"Média ✓"}\n\n`;
          const bytes = enc.encode(text);
          let i = 0;
          const body = new ReadableStream<Uint8Array>({
            pull(c) {
              if (i >= bytes.length) return c.close();
              c.enqueue(bytes.slice(i, (i += 5)));
            },
          });
          return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
        }
        const cursor = url.searchParams.get("cursor");
        const page = cursor ? { data: [{ id: "anl_2" }], next_cursor: null, has_more: false } : { data: [{ id: "anl_1" }], next_cursor: "c2", has_more: true };
        return new Response(JSON.stringify(page), { headers: { "Content-Type": "application/json" } });
      };
      let n = 0;
      const client = avt.createClient({ baseUrl: location.origin, token: async () => `jwt.token.${++n}`, fetch });
      const ids: string[] = [];
      for await (const a of avt.paginate(client, "/v1/analyses", { params: { query: { limit: 1 } } })) ids.push(a.id);
      const events: string[] = [];
      for await (const e of avt.streamAnalysisEvents(client, "anl_1")) events.push(`${e.event}:${JSON.stringify(e.data)}`);

      const signed = await avt.signWebhookPayload({ payload: '{"id":"evt_1"}', secret: "whsec_browser", timestamp: 1795093200 });
      await avt.verifyWebhookSignature({ payload: enc.encode('{"id":"evt_1"}'), headers: new Headers(signed.headers), secret: "whsec_browser", now: 1795093200_000 });
      const tampered = await avt
        .verifyWebhookSignature({ payload: '{"id":"evt_2"}', headers: signed.headers, secret: "whsec_browser", now: 1795093200_000 })
        .then(() => "accepted", (e: { reason: string }) => e.reason);

      const insecure = await avt
        .webSocketUrl(avt.createClient({ baseUrl: "http://api.example.test", apiKey: "pk_test_browser" }), "/v1/stream")
        .then(() => "allowed", (e: Error) => e.name);

      const ws = await avt.openWebSocket(avt.createClient({ baseUrl: wsBase, apiKey: "pk_test_browser" }), "/v1/stream", { params: { query: { encoding: "webm" } } });
      const first = new Promise<string>((resolve) => ws.addEventListener("message", (e: MessageEvent) => resolve(String(e.data))));
      await avt.whenOpen(ws);
      const message = JSON.parse(await first).event;
      ws.close();
      return { ids, events, seen, tampered, insecure, message, nativeWebSocket: ws instanceof WebSocket };
    }, { wsBase });

    expect(errors).toEqual([]);
    expect(result).toEqual({
      ids: ["anl_1", "anl_2"],
      events: ['status:{"analysis_id":"anl_1","status":"processing","progress":5}', 'error:{"detail":"Média ✓"}'],
      seen: [
        "/v1/analyses?limit=1 Bearer jwt.token.1",
        "/v1/analyses?limit=1&cursor=c2 Bearer jwt.token.2",
        "/v1/analysis/anl_1/stream Bearer jwt.token.3",
      ],
      tampered: "signature_mismatch",
      insecure: "InsecureTransportError",
      message: "session.started",
      nativeWebSocket: true,
    });
    expect(wsUrls).toEqual(["/v1/stream?encoding=webm&token=pk_test_browser"]);
  });
});
