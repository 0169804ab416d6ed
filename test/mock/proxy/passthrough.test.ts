// Proxy mode carries traffic unchanged: what the client sends reaches the upstream as sent (less the headers of
// one connection), and what the upstream answers reaches the client byte for byte. A conforming upstream — the
// project's own mock, driven by a whole verify run — shows no departure of the backend; requests that break the
// contract, and requests it does not describe, are forwarded all the same and listed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verify } from "../../../src/verify/index.js";
import { contract, ManualClock, startGateway, type TestGateway } from "../../helpers/mock.js";
import { listed } from "../../verify/helpers.js";
import { rawRequest, rulesOf, startProxy, startScripted, type TestProxy } from "./helpers.js";

const KEY = "pk_test_demo_business";

describe("proxy mode: the bytes cross unchanged", () => {
  it("forwards method, path, query, headers and body as sent, and answers the upstream's status, reason, headers and body", async () => {
    const answerBody = Buffer.from('{ "data" :[],\n  "has_more": false }\r\n\u00e9');
    const answerHeaders = [
      ["Content-Type", "application/json; charset=utf-8"],
      ["Set-Cookie", "a=1; Path=/"],
      ["Set-Cookie", "b=2; Path=/"],
      ["X-Odd-CASE", "Kept As Is"],
      ["Date", "Thu, 01 Jan 2026 00:00:00 GMT"],
      ["Content-Length", String(answerBody.length)],
    ];
    const upstream = await startScripted((_req, res) => {
      res.sendDate = false;
      res.writeHead(299, "Fine Thanks", answerHeaders.flat());
      res.end(answerBody);
    });
    const proxy = await startProxy(upstream.url);
    try {
      const sent = Buffer.from('{"media_url": "https://media.example.com/a.mp3",  "media_type": "audio"}');
      const target = "/v1/analyses?status=completed&x=%20a+b&x=2";
      const got = await rawRequest(proxy.url + target, {
        method: "POST",
        headers: ["Host", new URL(proxy.url).host, "X-API-Key", KEY, "Content-Type", "application/json", "X-Trace", "one", "X-Trace", "two", "Connection", "keep-alive, X-Hop", "X-Hop", "for the proxy only"],
        body: sent,
      });
      expect(got.status).toBe(299);
      expect(got.statusMessage).toBe("Fine Thanks");
      expect(got.body.equals(answerBody)).toBe(true);
      const headers = pairs(got.rawHeaders).filter(([k]) => !["connection", "keep-alive"].includes(k.toLowerCase()));
      expect(headers).toEqual(answerHeaders);

      const [r] = upstream.received;
      expect(r!.method).toBe("POST");
      expect(r!.url).toBe(target);
      expect(r!.body.equals(sent)).toBe(true);
      const h = pairs(r!.rawHeaders);
      expect(h.filter(([k]) => k === "X-Trace")).toEqual([["X-Trace", "one"], ["X-Trace", "two"]]);
      expect(h.find(([k]) => k === "X-API-Key")).toEqual(["X-API-Key", KEY]);
      expect(h.find(([k]) => k === "Host")).toEqual(["Host", new URL(upstream.url).host]);
      // What belongs to the client's connection stays there.
      expect(h.filter(([k]) => ["x-hop"].includes(k.toLowerCase()))).toEqual([]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("keeps a base path of the upstream URL in front of the request's path", async () => {
    const upstream = await startScripted((_req, res) => res.writeHead(204).end());
    const proxy = await startProxy(`${upstream.url}/api/`);
    try {
      await rawRequest(`${proxy.url}/v1/analyses?limit=2`, { headers: { "X-API-Key": KEY } });
      expect(upstream.received.map((r) => r.url)).toEqual(["/api/v1/analyses?limit=2"]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("proxy mode in front of the project's own mock", () => {
  let mock: TestGateway;
  let proxy: TestProxy;
  const clock = new ManualClock();
  beforeAll(async () => {
    mock = await startGateway({ clock, webhookDelayMs: 1_000_000_000 });
    proxy = await startProxy(mock.url);
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });

  it("a whole verify run through it (every operation, writes, invalid and malformed input): the backend departs nowhere", async () => {
    const report = await verify({
      target: proxy.url,
      apiKey: KEY,
      contract,
      rps: null,
      allowWrites: true,
      // The 429 probe would leave this file's later requests limited (its minute is the proxy's too).
      rateLimitBudget: 0,
      maxWaitSeconds: 3600,
      clock: { now: () => clock.now(), sleep: async (ms) => clock.advance(ms) },
    });
    // The verifier sees the mock as it would directly: the traffic was not changed on the way.
    expect(report.violations, listed(report)).toEqual([]);
    const seen = await proxy.violations();
    // The verifier sends invalid and malformed requests, and methods a path does not declare (Y54), on purpose: those
    // are the only departures, the client's.
    const rules = rulesOf(seen);
    expect([...new Set(rules)].sort(), seen.violations.filter((v) => !v.rule.startsWith("request-")).map((v) => `${v.operationId} ${v.rule}: ${v.message}`).join("\n")).toEqual(["request-body-malformed", "request-schema", "undocumented-operation"]);
    expect(rules.filter((r) => r === "request-schema").length).toBeGreaterThan(20);
    expect(seen.total).toBe(proxy.violationLines().length);
  }, 240_000);

  it("a request whose body breaks the contract is forwarded anyway (the mock answers its 422) and listed once", async () => {
    await fetch(`${proxy.url}/__mock/violations`, { method: "DELETE" });
    const logged = proxy.violationLines().length;
    const res = await fetch(`${proxy.url}/v1/analyses`, { method: "POST", headers: { "X-API-Key": KEY, "Content-Type": "application/json" }, body: '{"media_url": 5, "media_type": "audio"}' });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [expect.objectContaining({ loc: ["body", "media_url"] })] });
    const seen = await proxy.violations();
    expect(seen.violations).toEqual([
      expect.objectContaining({ operationId: "createAnalysis", method: "POST", path: "/v1/analyses", status: 422, rule: "request-schema", request: "POST /v1/analyses" }),
    ]);
    expect(seen.violations[0]!.message).toContain("body.media_url must be a string");
    const lines = proxy.violationLines().slice(logged);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ violation createAnalysis POST \/v1\/analyses 422 request-schema: the request breaks the contract's schemas: body\.media_url must be a string \(POST \/v1\/analyses\)$/);
  });

  it("a path or method the contract does not describe is forwarded (the mock answers 404 / 405) and listed as undocumented", async () => {
    await fetch(`${proxy.url}/__mock/violations`, { method: "DELETE" });
    const none = await fetch(`${proxy.url}/v1/no-such-thing/42?token=${KEY}`, { headers: { "X-API-Key": KEY } });
    expect(none.status).toBe(404);
    expect(((await none.json()) as { detail: string }).detail).toContain("No operation matches GET /v1/no-such-thing/42");
    const method = await fetch(`${proxy.url}/v1/analyses`, { method: "PATCH", headers: { "X-API-Key": KEY } });
    expect(method.status).toBe(405);
    await method.body?.cancel();
    const seen = await proxy.violations();
    expect(seen.violations).toEqual([
      expect.objectContaining({ operationId: null, method: "GET", path: "/v1/no-such-thing/42", status: 404, rule: "undocumented-operation", message: "no operation of the contract matches GET /v1/no-such-thing/42", request: "GET /v1/no-such-thing/42?token=[redacted]" }),
      expect.objectContaining({ operationId: null, method: "PATCH", path: "/v1/analyses", status: 405, rule: "undocumented-operation", message: "the contract documents GET, POST on this path, not PATCH" }),
    ]);
  });

  it("WebSocket: the upgrade and every frame cross unchanged, the 101 is judged (no departure); a refused upgrade comes back as the mock gave it", async () => {
    const { wsSession, ANALYSIS_ID } = await import("../../helpers/mock.js");
    await fetch(`${proxy.url}/__mock/violations`, { method: "DELETE" });
    // An earlier --allow-writes verify run may have deleted the example analysis: back to the seeded start.
    expect((await fetch(`${mock.url}/__mock/reset`, { method: "POST" })).status).toBe(204);
    const ws = (base: string) => wsSession(`${base.replace("http", "ws")}/ws/analyses/${ANALYSIS_ID}?token=${KEY}`);
    const [direct, proxied] = await Promise.all([ws(mock.url), ws(proxy.url)]);
    expect(proxied.messages.length).toBeGreaterThan(2);
    expect(proxied.messages).toEqual(direct.messages);
    expect(proxied.code).toBe(direct.code);
    expect(proxied.upgradeHeaders[contract.policy.headers.limit.toLowerCase()]).toBe(direct.upgradeHeaders[contract.policy.headers.limit.toLowerCase()]);
    const refused = await wsSession(`${proxy.url.replace("http", "ws")}/ws/analyses/${ANALYSIS_ID}`).catch((e: { status: number; body: unknown }) => e);
    expect(refused).toMatchObject({ status: 401, body: { error: "missing_credentials" } });
    const seen = await proxy.violations();
    expect(seen.violations).toEqual([]);
    expect(proxy.logs.filter((l) => / GET \/ws\/analyses\/\S+ 101 /.test(l))).toHaveLength(1);
  });
});

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}
