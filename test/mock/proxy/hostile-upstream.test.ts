// The proxy survives any upstream bytes (issue 29): a status line node:http parses but cannot send on (a status
// outside 100-599, a reason phrase with a control byte) answers 502 with a violation listed, and the gateway goes on.
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { rawExchange } from "../../helpers/robustness/http.js";
import { startProxy, type TestProxy } from "./helpers.js";

/** A raw TCP upstream answering every request with `statusLine`, then a small JSON body. */
async function rawUpstream(statusLine: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.once("data", () => socket.end(`${statusLine}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, "latin1"));
    socket.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of opened) await o.close();
});

describe("a hostile upstream", () => {
  for (const [what, line] of [
    ["a reason phrase with a control byte", "HTTP/1.1 200 O\x01K"],
    ["the status 099", "HTTP/1.1 099 Odd"],
  ] as const) {
    it(`${what}: 502 with a violation, and the proxy keeps serving`, async () => {
      const up = await rawUpstream(line);
      opened.push(up);
      const proxy: TestProxy = await startProxy(up.url);
      opened.push(proxy);
      const res = await fetch(`${proxy.url}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
      expect(res.status).toBe(502);
      expect((await res.json()).detail).toMatch(/invalid status line/);
      const v = await proxy.violations();
      expect(v.violations.some((x) => /invalid status line/.test(JSON.stringify(x)))).toBe(true);
      expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    });
  }
});

/**
 * A raw TCP upstream that answers each request with `bytes` and then keeps the connection open, saying nothing
 * more: what a client behind the proxy would wait on forever if the proxy waited for a final answer.
 */
async function silentAfter(bytes: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => socket.write(bytes, "latin1"));
    socket.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => (sockets.forEach((x) => x.destroy()), server.close(() => r()))),
  };
}

/** A WebSocket handshake for /v1/stream, as raw bytes (no client library in between). */
const HANDSHAKE = Buffer.from(
  "GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
    "Sec-WebSocket-Version: 13\r\nX-API-Key: pk_test_demo_pro\r\n\r\n",
  "latin1",
);

describe("a hostile upstream's interim and upgrade answers (issue 47)", () => {
  const upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
  const cases: Array<[what: string, answer: string, request: "plain" | "upgrade", why: RegExp]> = [
    ["a 101 to a plain GET", `HTTP/1.1 101 Switching Protocols\r\n${upgrade}`, "plain", /101.*not asked/],
    ["a 102 to a plain GET, then silence", "HTTP/1.1 102 Processing\r\n\r\n", "plain", /102/],
    ["a 103 to a plain GET, then silence", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", "plain", /103/],
    ["a 100 to a GET that did not expect it, then silence", "HTTP/1.1 100 Continue\r\n\r\n", "plain", /100/],
    ["a 100 to a WebSocket upgrade, then silence", "HTTP/1.1 100 Continue\r\n\r\n", "upgrade", /100/],
    ["the status 999 to a WebSocket upgrade", "HTTP/1.1 999 Odd\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", "upgrade", /999.{0,4} is not 100-599/],
    ["a 101 whose reason holds a control byte", `HTTP/1.1 101 Switching\x01Protocols\r\n${upgrade}`, "upgrade", /control byte/],
  ];
  for (const [what, answer, request, why] of cases) {
    it(`${what}: 502 with a violation, at once`, async () => {
      const up = await silentAfter(answer);
      opened.push(up);
      const proxy: TestProxy = await startProxy(up.url);
      opened.push(proxy);
      const base = new URL(proxy.url);
      const res =
        request === "plain"
          ? await rawExchange(base, Buffer.from("GET /v1/analyses HTTP/1.1\r\nHost: localhost\r\nX-API-Key: pk_test_demo_pro\r\nConnection: close\r\n\r\n"), 20_000)
          : await rawExchange(base, HANDSHAKE, 20_000);
      expect(res, "the proxy answered").not.toBeNull();
      expect(res!.status).toBe(502);
      const detail = (JSON.parse(res!.body.toString("utf8")) as { detail: string }).detail;
      expect(detail).toMatch(why);
      const v = await proxy.violations();
      expect(v.violations.some((x) => why.test(JSON.stringify(x)))).toBe(true);
      expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    }, 40_000);
  }
});
