// The controls a frontend team needs (stages/latency.ts, stages/mock-controls.ts, option `stateless`): a delay on
// every API answer, POST /__mock/reset, and the example-only mock of before.
import { nodePlatform } from "../../../../src/mock/homes/node/platform.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLatency } from "../../../../src/mock/index.js";
import { buildServices } from "../../../../src/mock/core/pipeline/services.js";
import { mockControls } from "../../../../src/mock/core/stages/mock-controls.js";
import type { RequestContext } from "../../../../src/mock/core/pipeline/context.js";
import { rawExchange } from "../../../helpers/robustness/http.js";
import { seededKeyId } from "../../../../src/mock/core/access/keys.js";
import { apiKey, contract, freshKey, getJson, rateHeaders, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";

// A key the gateway starts with, not a demo key: those cannot be revoked (decision SH10).
const startedWith = freshKey("starter");

const json = (key = "pk_test_demo_business") => ({ ...apiKey(key), "Content-Type": "application/json" });
const post = (url: string, body: unknown, key?: string) => getJson(url, { method: "POST", headers: json(key), body: JSON.stringify(body) });
const form = (url: string, fields: Record<string, string>) =>
  getJson(url, { method: "POST", headers: { ...apiKey("pk_test_demo_business"), "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

describe("latency (MOCK_LATENCY_MS, --latency, latencyMs)", () => {
  it("parses a delay or a range, and names the variable when it cannot", () => {
    expect(parseLatency("300", "MOCK_LATENCY_MS")).toBe(300);
    expect(parseLatency(" 100-800 ", "MOCK_LATENCY_MS")).toEqual([100, 800]);
    expect(parseLatency("", "MOCK_LATENCY_MS")).toBeNull();
    for (const bad of ["fast", "-5", "1.5", "800-100", "100-", "60001"]) expect(() => parseLatency(bad, "MOCK_LATENCY_MS"), bad).toThrow(/^MOCK_LATENCY_MS must be a delay in milliseconds/);
    expect(() => parseLatency("800-100", "--latency")).toThrow('--latency must be a delay in milliseconds such as 300, or a range such as 100-800 (the smaller number first); got "800-100".');
  });

  it("holds each answer under /v1, /aria and /ws for a delay drawn from the range, and nothing else", async () => {
    const asked: number[] = [];
    let release: () => void = () => {};
    const g = await startGateway({ latencyMs: [100, 800], sleep: (ms) => (asked.push(ms), new Promise<void>((r) => (release = r))) });
    try {
      // The answer waits for the delay.
      let answered = false;
      const pending = getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_pro") }).then((r) => ((answered = true), r));
      while (asked.length === 0) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 200)); // the answer would be here by now, were it not held
      expect(answered).toBe(false);
      release();
      expect((await pending).status).toBe(200);
      // Every API path, whatever its answer; never health, documentation or preflights.
      const auto = await startGateway({ latencyMs: [100, 800], sleep: async (ms) => asked.push(ms) });
      try {
        asked.length = 0;
        for (const p of ["/v1/analyses", "/aria/conversations", "/v1/nope"]) await getJson(auto.url + p, { headers: apiKey("pk_test_demo_pro") });
        await getJson(`${auto.url}/v1/analyses`); // 401
        expect(asked.length).toBe(4);
        for (const p of ["/health", "/healthz", "/openapi.yaml", "/swagger.html", "/elsewhere"]) await fetch(auto.url + p);
        await fetch(`${auto.url}/v1/analyses`, { method: "OPTIONS", headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "GET" } });
        expect(asked.length).toBe(4);
        for (let i = 0; i < 200; i++) await fetch(`${auto.url}/v1/health`, { headers: apiKey("pk_test_demo_business") });
        expect(Math.min(...asked)).toBeGreaterThanOrEqual(100);
        expect(Math.max(...asked)).toBeLessThanOrEqual(800);
        expect(new Set(asked).size).toBeGreaterThan(50); // drawn, not fixed
      } finally {
        await auto.close();
      }
    } finally {
      await g.close();
    }
  });

  it("a fixed delay is that delay; an invalid option is refused at start", async () => {
    const asked: number[] = [];
    const g = await startGateway({ latencyMs: 300, sleep: async (ms) => asked.push(ms) });
    try {
      await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_pro") });
      expect(asked).toEqual([300]);
    } finally {
      await g.close();
    }
    await expect(startGateway({ latencyMs: [800, 100] })).rejects.toThrow(/latencyMs must be whole milliseconds/);
  });
});

describe("POST /__mock/reset", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ extraKeys: [startedWith] });
  });
  afterAll(() => g.close());

  it("forgets created keys, webhooks and tokens, and undoes changes to demo keys (204); the limiter keeps counting", async () => {
    const key = (await post(`${g.url}/v1/keys`, { name: "temp", environment: "test" })).body;
    const hook = (await post(`${g.url}/v1/webhooks`, { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] })).body;
    const board = (await post(`${g.url}/v1/boards`, { name: "Forgotten" })).body;
    await getJson(`${g.url}/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0`, { method: "DELETE", headers: apiKey("pk_test_demo_business") });
    const code = { grant_type: "authorization_code", code: "ac_reset", redirect_uri: "https://app.example/cb", code_verifier: "v".repeat(43), client_id: "app" };
    const tokens = (await form(`${g.url}/v1/oauth/token`, code)).body;
    await getJson(`${g.url}/v1/keys/${seededKeyId(startedWith.key)}`, { method: "DELETE", headers: apiKey(startedWith.key) });
    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(startedWith.key) })).status).toBe(401);
    const before = rateHeaders((await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_business") })).headers).remaining;

    const r = await fetch(`${g.url}/__mock/reset`, { method: "POST" });
    expect(r.status).toBe(204);
    const after = rateHeaders((await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_business") })).headers).remaining;
    expect(after).toBe(before - 1); // the minute goes on: the limiter is not reset

    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(key.secret) })).body.error).toBe("invalid_credentials");
    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(startedWith.key) })).status).toBe(200);
    expect((await getJson(`${g.url}/v1/webhooks/${hook.id}`, { headers: apiKey("pk_test_demo_business") })).status).toBe(404);
    expect((await getJson(`${g.url}/v1/webhooks`, { headers: apiKey("pk_test_demo_business") })).body.data).toEqual([]);
    expect((await form(`${g.url}/v1/oauth/token`, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "app" })).body.error).toBe("invalid_grant");
    expect((await form(`${g.url}/v1/oauth/token`, code)).status).toBe(200); // the used code is forgotten too
    // The store is back to its seed: what was created is gone, what was deleted is back.
    expect((await getJson(`${g.url}/v1/boards/${board.id}`, { headers: apiKey("pk_test_demo_business") })).status).toBe(404);
    expect((await getJson(`${g.url}/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0`, { headers: apiKey("pk_test_demo_business") })).status).toBe(200);
    expect(g.logs.some((l) => / mock state reset: keys, webhooks, oauth, store$/.test(l))).toBe(true);
  });

  it("refuses scripts of other web pages (403), answers its own origin, and knows only POST on its own paths", async () => {
    const evil = await fetch(`${g.url}/__mock/reset`, { method: "POST", headers: { Origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    expect((await evil.json()).detail).toMatch(/do not answer web pages of other sites/);
    // A page whose own name was made to point at 127.0.0.1 (DNS rebinding) sends its own name as Origin and Host.
    const port = new URL(g.url).port;
    const raw = (origin: string, host: string) =>
      rawExchange(new URL(g.url), Buffer.from(`POST /__mock/reset HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`));
    expect((await raw(`http://rebound.example:${port}`, `rebound.example:${port}`))?.status).toBe(403);
    expect((await raw(`http://localhost:${port}`, `127.0.0.1:${port}`))?.status).toBe(403); // not the same origin
    expect((await raw(`http://localhost:${port}`, `localhost:${port}`))?.status).toBe(204);
    expect((await fetch(`${g.url}/__mock/reset`, { method: "POST", headers: { Origin: g.url } })).status).toBe(204);
    const get = await fetch(`${g.url}/__mock/reset`);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    expect((await fetch(`${g.url}/__mock/nothing`, { method: "POST" })).status).toBe(404);
  });

  it("refuses a client that is not on this machine (403)", () => {
    const s = buildServices({ contract, log: null }, nodePlatform);
    const stage = mockControls(s);
    const ctx = (remoteAddress: string) => ({ pathname: "/__mock/reset", method: "POST", req: { socket: { remoteAddress }, headers: {} } }) as unknown as RequestContext;
    for (const far of ["192.168.1.20", "::ffff:10.0.0.3", "2001:db8::1"]) expect((stage(ctx(far)) as { status: number }).status, far).toBe(403);
    for (const near of ["127.0.0.1", "::ffff:127.0.0.1", "::1"]) expect((stage(ctx(near)) as { status: number }).status, near).toBe(204);
  });
});

describe("stateless (--stateless)", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ stateless: true });
  });
  afterAll(() => g.close());

  it("answers keys, OAuth and webhooks from the contract's examples and keeps nothing", async () => {
    const receiver = await startReceiver();
    try {
      const key = await post(`${g.url}/v1/keys`, { name: "x", environment: "test" });
      expect([key.status, key.body.id]).toEqual([201, "key_01HZX6C8E2G4J6K8N0Q2S4T6W8"]);
      expect((await getJson(`${g.url}/v1/keys`, { headers: apiKey("pk_test_demo_business") })).body.data[0].id).toBe("key_01HZXE5G7J9K1M3N5P7Q9R1S3T");
      const hook = await post(`${g.url}/v1/webhooks`, { url: receiver.url, event_types: ["report.ready"] });
      expect([hook.status, hook.body.id]).toEqual([201, "whk_01HZX3T6Q2M8V4R1K7P9N5C3B2"]);
      const token = await form(`${g.url}/v1/oauth/token`, { grant_type: "client_credentials", client_id: "app" });
      expect(token.body.access_token).toBe("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c3JfMDFIWlgxQjNDNUQ3RTlGMkc0SDZKOEswTTIifQ.c2lnbmF0dXJl");
      expect(g.gateway.states.all).toEqual([]);
      expect((await fetch(`${g.url}/__mock/reset`, { method: "POST" })).status).toBe(204);
      await new Promise((r) => setTimeout(r, 100)); // a sample delivery would have arrived (webhookDelayMs 0)
      expect(receiver.deliveries).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("still checks credentials and limits, and billing still reads the limiter", async () => {
    expect((await getJson(`${g.url}/v1/keys`)).status).toBe(401);
    const usage = await getJson(`${g.url}/v1/billing/usage`, { headers: apiKey("pk_test_demo_business") });
    const general = usage.body.minute.find((m: { category: string }) => m.category === "general");
    expect([usage.body.daily_limit, general.limit, general.remaining]).toEqual([50_000, 300, rateHeaders(usage.headers).remaining]);
  });

  it("cannot be combined with a state file", async () => {
    await expect(startGateway({ stateless: true, stateFile: "/tmp/never-written.json" })).rejects.toThrow(/use one or the other/);
  });
});
