// Issue 22, proxy mode: WebSocket upgrades get the same edge checks as plain requests, Proxy-Authorization stays
// with the proxy, and at most --max-proxy-exchanges exchanges cross at once (decisions SH*).
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rawExchange } from "../../helpers/robustness/http.js";
import { conformingHeaders, listening, startProxy, type Scripted, type TestProxy } from "./helpers.js";

describe("proxy mode on a shared host", () => {
  const seen: Array<{ kind: "request" | "upgrade"; url: string; rawHeaders: string[] }> = [];
  const held: http.ServerResponse[] = [];
  let upstream: Scripted;
  let p: TestProxy;
  beforeAll(async () => {
    const server = http.createServer((req, res) => {
      seen.push({ kind: "request", url: req.url!, rawHeaders: req.rawHeaders });
      if (req.url!.startsWith("/v1/hold")) return void held.push(res);
      res.writeHead(200, { ...conformingHeaders(), "Content-Type": "application/json" }).end("{}");
    });
    server.on("upgrade", (req, socket) => {
      seen.push({ kind: "upgrade", url: req.url!, rawHeaders: req.rawHeaders });
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    upstream = await listening(server);
    p = await startProxy(upstream.url, { limits: { proxyExchanges: 2 } });
  });
  afterAll(async () => {
    for (const r of held) r.end();
    await p.close();
    await upstream.close();
  });

  const upgrade = (target: string, hosts: string[]) =>
    Buffer.from(
      `GET ${target} HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join("")}Connection: Upgrade\r\nUpgrade: websocket\r\n` +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    );

  it("refuses an upgrade with an absolute-form target or two Host headers (400), sending nothing upstream", async () => {
    const host = new URL(p.url).host;
    for (const bytes of [upgrade("http://internal.example/ws/analyses/anl_1", [host]), upgrade("/ws/analyses/anl_1", [host, "internal.example"])]) {
      const r = await rawExchange(new URL(p.url), bytes);
      expect(r?.status).toBe(400);
    }
    expect(seen.filter((s) => s.kind === "upgrade")).toEqual([]);
  });

  it("never forwards Proxy-Authorization, on requests or upgrades", async () => {
    await fetch(`${p.url}/v1/analyses`, { headers: { "Proxy-Authorization": "Basic c2VjcmV0OnNlY3JldA==" } });
    await rawExchange(new URL(p.url), Buffer.concat([upgrade("/ws/analyses/anl_1", [new URL(p.url).host]).subarray(0, -2), Buffer.from("Proxy-Authorization: Basic c2VjcmV0\r\n\r\n")]));
    const forwarded = seen.filter((s) => s.url.startsWith("/v1/analyses") || s.kind === "upgrade");
    expect(forwarded.map((s) => s.kind).sort()).toEqual(["request", "upgrade"]);
    for (const s of forwarded) expect(s.rawHeaders.map((h) => h.toLowerCase())).not.toContain("proxy-authorization");
  });

  it("answers 503 capacity_exceeded beyond --max-proxy-exchanges crossing at once, and carries on once they end", async () => {
    const first = fetch(`${p.url}/v1/hold/1`);
    const second = fetch(`${p.url}/v1/hold/2`);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    const third = await fetch(`${p.url}/v1/analyses`);
    expect([third.status, (await third.json()).error, third.headers.get("retry-after")]).toEqual([503, "capacity_exceeded", "5"]);
    for (const r of held.splice(0)) r.writeHead(200, { ...conformingHeaders(), "Content-Type": "application/json" }).end("{}");
    await Promise.all([(await first).text(), (await second).text()]);
    await vi.waitFor(async () => expect((await fetch(`${p.url}/v1/analyses`)).status).toBe(200));
  });
});
