// Every auth rule of the edge, over real HTTP against a gateway on a free port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_JWT_SECRET, mintToken } from "../../src/mock/auth.js";
import { ANALYSIS_ID, apiKey, freshKey, getJson, rateHeaders, schemaErrors, startGateway, wsSession, type TestGateway } from "./helpers.js";

let g: TestGateway;
const live = freshKey("pro", { key: "pk_live_auth_test_live_key" });
beforeAll(async () => {
  g = await startGateway({ extraKeys: [live] });
});
afterAll(() => g.close());

const token = (o: Partial<Parameters<typeof mintToken>[0]> = {}) =>
  mintToken({ secret: DEFAULT_JWT_SECRET, workspaceId: "ws_JwtUser0001", plan: "pro", expiresInSeconds: 600, now: g.clock.now(), ...o });

async function expect401(path: string, headers: Record<string, string>, detail: RegExp | string) {
  const r = await getJson(g.url + path, { headers });
  expect(r.status).toBe(401);
  expect(schemaErrors("Error", r.body)).toEqual([]);
  if (typeof detail === "string") expect(r.body.detail).toBe(detail);
  else expect(r.body.detail).toMatch(detail);
  return r;
}

describe("authentication", () => {
  it("answers 401 with the contract's message when credentials are missing", async () => {
    await expect401("/v1/analyses", {}, "Missing credentials. Send an X-API-Key header or an Authorization Bearer token.");
  });

  it("accepts a known pk_test_ key and a known pk_live_ key", async () => {
    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_free") })).status).toBe(200);
    expect((await getJson(`${g.url}/v1/analyses`, { headers: apiKey(live.key) })).status).toBe(200);
  });

  it("refuses a key without the pk_live_/pk_test_ prefix, and an unknown key, with 401", async () => {
    await expect401("/v1/analyses", apiKey("sk_test_demo_pro"), /must start with pk_live_ or pk_test_/);
    await expect401("/v1/analyses", apiKey("pk_test_not_a_real_key"), /not a known key/);
    await expect401("/v1/analyses", apiKey("pk_live_demo_pro"), /not a known key/);
  });

  it("accepts a valid bearer JWT and refuses an expired one (by the injected clock), a forged one and a non-Bearer scheme", async () => {
    const jwt = await token({ expiresInSeconds: 60 });
    const ok = await getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${jwt}` } });
    expect(ok.status).toBe(200);
    g.clock.advance(61_000);
    await expect401("/v1/analyses", { Authorization: `Bearer ${jwt}` }, "The bearer token has expired.");
    const forged = await mintToken({ secret: "another-secret-another-secret-1234", workspaceId: "ws_JwtUser0001", plan: "pro", expiresInSeconds: 600, now: g.clock.now() });
    await expect401("/v1/analyses", { Authorization: `Bearer ${forged}` }, "The bearer token is invalid.");
    await expect401("/v1/analyses", { Authorization: "Bearer not.a.jwt" }, "The bearer token is invalid.");
    await expect401("/v1/analyses", { Authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, /must be `Bearer <JWT>`/);
  });

  it("refuses a JWT without a usable workspace or plan", async () => {
    const noPlan = await token({ workspaceId: "ws_UnknownWorkspace", plan: undefined });
    await expect401("/v1/analyses", { Authorization: `Bearer ${noPlan}` }, /workspace_id or plan/);
    const known = await token({ workspaceId: "ws_DemoStarter0", plan: undefined }); // plan taken from the demo workspace
    const r = await getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${known}` } });
    expect(r.status).toBe(200);
    expect(rateHeaders(r.headers).limit).toBe(60);
  });

  it("accepts ?token= only on the SSE and WebSocket endpoints", async () => {
    await expect401("/v1/analyses?token=pk_test_demo_pro", {}, /accepted only on the WebSocket and SSE endpoints/);
    const sse = await fetch(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream?token=pk_test_demo_pro`);
    expect(sse.status).toBe(200);
    await sse.body?.cancel();
    const jwt = await token();
    const sseJwt = await fetch(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream?token=${jwt}`);
    expect(sseJwt.status).toBe(200);
    await sseJwt.body?.cancel();
    const ws = await wsSession(`${g.url.replace("http", "ws")}/ws/analyses/${ANALYSIS_ID}?token=pk_test_demo_pro`);
    expect(ws.code).toBe(1000);
    const noToken = await wsSession(`${g.url.replace("http", "ws")}/v1/stream`).catch((e) => e);
    expect(noToken.status).toBe(401);
    expect(noToken.body.detail).toMatch(/token query parameter/);
  });

  it("answers 403 for a frozen workspace, by key or by JWT, after counting the request", async () => {
    const r = await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_frozen") });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ detail: "This workspace is frozen. Contact support to restore access." });
    expect(rateHeaders(r.headers).remaining).toBe(rateHeaders(r.headers).limit - 1);
    const jwt = await token({ frozen: true });
    expect((await getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${jwt}` } })).status).toBe(403);
  });

  it("never echoes a credential in a body or a log line", async () => {
    const secretKey = "pk_test_this_is_a_secret_value";
    const jwt = await token({ expiresInSeconds: -10 });
    const bodies = [
      await getJson(`${g.url}/v1/analyses`, { headers: apiKey(secretKey) }),
      await getJson(`${g.url}/v1/analyses?token=${secretKey}`),
      await getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${jwt}` } }),
      await getJson(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream?token=${jwt}`),
    ].map((r) => JSON.stringify(r.body));
    for (const text of [...bodies, ...g.logs]) {
      expect(text).not.toContain("this_is_a_secret_value");
      expect(text).not.toContain(jwt);
      expect(text).not.toContain(jwt.split(".")[2]);
    }
    expect(g.logs.some((l) => l.includes("token=[redacted]"))).toBe(true);
  });

  it("serves /health and /healthz without credentials, with the GatewayHealth body and no rate-limit headers", async () => {
    for (const p of ["/health", "/healthz"]) {
      const r = await getJson(g.url + p);
      expect(r.status).toBe(200);
      expect(schemaErrors("GatewayHealth", r.body)).toEqual([]);
      expect(r.body).toMatchObject({ status: "ok", service: "gateway" });
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});
