// The proxy survives any upstream bytes (issue 29): a status line node:http parses but cannot send on (a status
// outside 100-599, a reason phrase with a control byte) answers 502 with a violation listed, and the gateway goes on.
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
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
