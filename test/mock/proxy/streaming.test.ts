// Proxy mode streams: an event stream reaches the client event by event while the upstream still holds it open, and
// is judged once it ends; a large upload reaches the upstream while the client is still sending it (the proxy never
// holds it); a WebSocket's frames cross and its handshake is judged. Plus what happens when the upstream cannot
// answer, what is not judged, and the /__mock/violations control.
import { createHash } from "node:crypto";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { ANALYSIS_ID, contract, wsSession } from "../../helpers/mock.js";
import { conformingHeaders, exampleEvent, listening, rulesOf, startProxy, startScripted } from "./helpers.js";

const KEY = "pk_test_demo_business";

/** Rejects with `message` unless `p` settles within `ms` (a fail-safe: what is asserted is the order of events). */
function within<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref())]);
}

describe("proxy mode: event streams", () => {
  it("an event reaches the client while the upstream still holds the stream open; the stream is judged once it ends", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let upstreamEnded = false;
    const upstream = await startScripted((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...conformingHeaders() });
      res.write(exampleEvent("AnalysisStreamStatusEvent"));
      void released.then(() => {
        res.end(exampleEvent("AnalysisStreamEvent") + 'id: evt_bad\nevent: status\ndata: {"progress": "half"}\n\n');
        upstreamEnded = true;
      });
    });
    const proxy = await startProxy(upstream.url);
    try {
      const res = await fetch(`${proxy.url}/v1/analysis/${ANALYSIS_ID}/stream?token=${KEY}`);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const reader = res.body!.getReader();
      const first = await within(reader.read(), 10_000, "the first event did not arrive while the upstream held the stream open: the proxy buffers it");
      expect(Buffer.from(first.value!).toString()).toBe(exampleEvent("AnalysisStreamStatusEvent"));
      expect(upstreamEnded).toBe(false);
      expect((await proxy.violations()).violations).toEqual([]); // nothing judged before the stream is over
      release();
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
      expect(rest).toContain("evt_bad");
      const seen = await proxy.violations();
      expect(seen.violations).toEqual([
        expect.objectContaining({ operationId: "streamAnalysisEvents", rule: "response-schema", status: 200, message: expect.stringMatching(/^event status \(id evt_bad\) does not match its schema/) }),
      ]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("a stream the client leaves is cut at the upstream too, and its whole events are judged", async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const upstream = await startScripted((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream", ...conformingHeaders() });
      res.write('id: e1\nevent: status\ndata: {"analysis_id": 1}\n\nid: e2\nevent: sta');
      res.on("close", upstreamClosed);
    });
    const proxy = await startProxy(upstream.url);
    try {
      const ac = new AbortController();
      const res = await fetch(`${proxy.url}/v1/analysis/${ANALYSIS_ID}/stream?token=${KEY}`, { signal: ac.signal });
      await res.body!.getReader().read();
      ac.abort();
      await within(closed, 10_000, "the upstream's stream stayed open after the client left");
      const seen = await proxy.violations();
      expect(seen.violations.map((v) => v.message)).toEqual([expect.stringMatching(/^event status \(id e1\) does not match its schema/)]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("proxy mode: uploads", () => {
  it("50 MB reach the upstream while the client is still sending them (never held by the proxy), byte for byte", async () => {
    const TOTAL = 50 * 1024 * 1024;
    const CHUNK = 64 * 1024;
    /** The most the client may be ahead of the upstream: far below the upload, so a proxy that held it would stall. */
    const WINDOW = 8 * 1024 * 1024;
    let received = 0;
    const upstreamHash = createHash("sha256");
    const progressed: Array<() => void> = [];
    const server = http.createServer((req, res) => {
      req.on("data", (c: Buffer) => {
        received += c.length;
        upstreamHash.update(c);
        for (const f of progressed.splice(0)) f();
      });
      req.on("end", () => res.writeHead(202, { "Content-Type": "application/json", ...conformingHeaders() }).end(JSON.stringify({ received })));
    });
    const upstream = await listening(server);
    const proxy = await startProxy(upstream.url);
    try {
      const sentHash = createHash("sha256");
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${proxy.url}/v1/analysis/stream-upload?media_type=audio`, { method: "POST", headers: { "X-API-Key": KEY, "Content-Type": "application/octet-stream" } }, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        });
        req.on("error", reject);
        void (async () => {
          for (let sent = 0; sent < TOTAL; sent += CHUNK) {
            while (sent - received > WINDOW) await within(new Promise<void>((r) => progressed.push(r)), 10_000, `the upstream had ${received} of ${sent} bytes sent: the proxy holds the upload`);
            const chunk = Buffer.alloc(CHUNK, sent / CHUNK);
            sentHash.update(chunk);
            if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
          }
          req.end();
        })().catch(reject);
      });
      const got = await answer;
      expect(got).toEqual({ status: 202, body: JSON.stringify({ received: TOTAL }) });
      expect(upstreamHash.digest("hex")).toBe(sentHash.digest("hex"));
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("a structured body over the copy limit is forwarded whole and not judged, and the log says so", async () => {
    const upstream = await startScripted((_req, res, body) => res.writeHead(201, { "Content-Type": "application/json", ...conformingHeaders() }).end(JSON.stringify({ size: body.length })));
    const proxy = await startProxy(upstream.url, { maxValidatedBytes: 64 });
    try {
      const invalid = JSON.stringify({ media_url: 5, media_type: "audio", title: "x".repeat(100) });
      const res = await fetch(`${proxy.url}/v1/analyses`, { method: "POST", headers: { "X-API-Key": KEY, "Content-Type": "application/json" }, body: invalid });
      expect(await res.json()).toEqual({ size: invalid.length });
      const seen = await proxy.violations();
      expect(rulesOf(seen)).not.toContain("request-schema");
      expect(proxy.logs.filter((l) => l.includes("request body not judged"))).toEqual([expect.stringMatching(/ POST \/v1\/analyses: request body not judged \(\d+ bytes, over the 64-byte copy limit\)$/)]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("proxy mode: WebSocket", () => {
  it("frames cross in both directions and the handshake is judged (a 101 without X-RateLimit-Reset is listed)", async () => {
    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    const h = conformingHeaders();
    wss.on("headers", (headers) => {
      for (const [k, v] of Object.entries(h)) if (k !== contract.policy.headers.reset) headers.push(`${k}: ${v}`);
    });
    wss.on("connection", (ws) => ws.on("message", (m) => ws.send(JSON.stringify({ echo: JSON.parse(String(m)) }), () => ws.close(1000, "done"))));
    const upstream = await listening(server);
    const proxy = await startProxy(upstream.url);
    try {
      const session = await wsSession(`${proxy.url.replace("http", "ws")}/ws/analyses/${ANALYSIS_ID}?token=${KEY}`, { onOpen: (ws) => ws.send(JSON.stringify({ hello: "ü".repeat(70_000) })) });
      expect(session.messages).toEqual([{ echo: { hello: "ü".repeat(70_000) } }]);
      expect(session).toMatchObject({ code: 1000, reason: "done" });
      const seen = await proxy.violations();
      expect(seen.violations).toEqual([expect.objectContaining({ operationId: "connectAnalysisEvents", status: 101, rule: "rate-limit-headers", message: `101 lacks the ${contract.policy.headers.reset} header` })]);
    } finally {
      wss.close();
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("proxy mode: closing the gateway", () => {
  it("cuts the WebSocket tunnels still open (they are no connections of its server any more)", async () => {
    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    wss.on("connection", (ws) => ws.send(JSON.stringify({ open: true })));
    const upstream = await listening(server);
    const proxy = await startProxy(upstream.url);
    try {
      const session = wsSession(`${proxy.url.replace("http", "ws")}/ws/analyses/${ANALYSIS_ID}?token=${KEY}`, { onMessage: () => void proxy.close() });
      const ended = await within(session, 10_000, "the tunnel stayed open after the gateway closed");
      expect(ended.messages).toEqual([{ open: true }]);
    } finally {
      wss.close();
      await upstream.close();
    }
  });
});

describe("proxy mode: an upstream that cannot answer", () => {
  it("unreachable: 502 with the gateway's error body, listed under `transport`; the gateway's own paths still answer", async () => {
    const gone = await startScripted(() => {});
    await gone.close(); // a port nothing listens on
    const proxy = await startProxy(gone.url);
    try {
      const res = await fetch(`${proxy.url}/v1/health`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ detail: `The upstream did not answer: ECONNREFUSED (${gone.url}).` });
      expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
      expect((await fetch(`${proxy.url}/openapi.yaml`)).status).toBe(200);
      const ws = await wsSession(`${proxy.url.replace("http", "ws")}/v1/stream?token=${KEY}`).catch((e: { status: number }) => e);
      expect(ws).toMatchObject({ status: 502 });
      const seen = await proxy.violations();
      expect(seen.violations.map((v) => [v.operationId, v.status, v.rule, v.message])).toEqual([
        ["getServiceHealth", 502, "transport", "the upstream did not answer: ECONNREFUSED"],
        ["connectLiveStream", 502, "transport", "the upstream did not answer: ECONNREFUSED"],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("silent past its time: 504, listed under `transport`", async () => {
    const upstream = await startScripted(() => {}); // never answers
    const proxy = await startProxy(upstream.url, { upstreamTimeoutMs: 200 });
    try {
      const res = await fetch(`${proxy.url}/v1/analyses`, { headers: { "X-API-Key": KEY } });
      expect(res.status).toBe(504);
      expect(await res.json()).toEqual({ detail: `The upstream did not start answering within 0.2 s (${upstream.url}).` });
      expect(rulesOf(await proxy.violations())).toEqual(["transport"]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("an answer broken off midway is broken off for the client too, and listed", async () => {
    const upstream = await startScripted((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "1000", ...conformingHeaders() });
      res.write('{"data": [');
      setTimeout(() => res.destroy(), 50);
    });
    const proxy = await startProxy(upstream.url);
    try {
      const res = await fetch(`${proxy.url}/v1/analyses`, { headers: { "X-API-Key": KEY } });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      expect((await proxy.violations()).violations.map((v) => [v.rule, v.message])).toEqual([["transport", "the upstream's answer broke off after 10 bytes of body"]]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("GET and DELETE /__mock/violations", () => {
  it("lists the newest last with seq and timestamp, `since` keeps the newer ones, DELETE forgets; at most maxViolations, the rest counted as dropped", async () => {
    const upstream = await startScripted((_req, res) => res.writeHead(404, { "Content-Type": "application/json" }).end('{"detail": "no"}'));
    const proxy = await startProxy(upstream.url, { maxViolations: 3 });
    try {
      for (const n of [1, 2, 3, 4, 5]) await (await fetch(`${proxy.url}/nowhere/${n}`)).text();
      const all = await proxy.violations();
      expect(all).toMatchObject({ upstream: upstream.url, total: 5, dropped: 2 });
      expect(all.violations.map((v) => [v.seq, v.path])).toEqual([
        [3, "/nowhere/3"],
        [4, "/nowhere/4"],
        [5, "/nowhere/5"],
      ]);
      expect(all.violations[0]!.timestamp).toBe(new Date(proxy.clock.now()).toISOString());
      expect((await proxy.violations("?since=4")).violations.map((v) => v.seq)).toEqual([5]);
      expect((await fetch(`${proxy.url}/__mock/violations?since=four`)).status).toBe(400);
      expect((await fetch(`${proxy.url}/__mock/violations`, { method: "DELETE" })).status).toBe(204);
      expect(await proxy.violations()).toMatchObject({ total: 0, dropped: 0, violations: [] });
      await (await fetch(`${proxy.url}/nowhere/6`)).text();
      expect((await proxy.violations("?since=5")).violations.map((v) => v.seq)).toEqual([6]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("answers only this machine's programs: a web page of another site gets 403; other methods 405, other controls 404; never forwarded", async () => {
    const upstream = await startScripted((_req, res) => res.writeHead(500).end());
    const proxy = await startProxy(upstream.url);
    try {
      const foreign = await fetch(`${proxy.url}/__mock/violations`, { headers: { Origin: "https://evil.example" } });
      expect(foreign.status).toBe(403);
      expect(((await foreign.json()) as { detail: string }).detail).toMatch(/do not answer web pages of other sites.*curl …\/__mock\/violations$/);
      expect((await fetch(`${proxy.url}/__mock/violations`, { method: "DELETE", headers: { Origin: "http://attacker.example" } })).status).toBe(403);
      expect((await fetch(`${proxy.url}/__mock/violations`, { headers: { Origin: proxy.url } })).status).toBe(200);
      const post = await fetch(`${proxy.url}/__mock/violations`, { method: "POST" });
      expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, DELETE"]);
      expect((await fetch(`${proxy.url}/__mock/reset`, { method: "POST" })).status).toBe(404);
      expect(upstream.received).toEqual([]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
