// Every auth rule of the edge, over real HTTP against a gateway on a free port.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Authenticator, CHALLENGES, DEFAULT_JWT_SECRET, JWT_AUDIENCE, JWT_CLOCK_SKEW_SECONDS, JWT_ISSUER, JWT_MAX_LIFETIME_SECONDS, MESSAGES, mintToken } from "../../../../src/mock/core/access/auth.js";
import { demoKeys, KeyStore } from "../../../../src/mock/core/access/keys.js";
import { minuteLimit } from "../../../../src/contract/policy.js";
import { header, rawRequest } from "../../../helpers/robustness/http.js";
import { ANALYSIS_ID, apiKey, freshKey, getJson, ManualClock, policy, rateHeaders, schemaErrors, startGateway, wsSession, type TestGateway } from "../../../helpers/mock.js";

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
    expect(r.body).toEqual({ detail: "This workspace is frozen. Contact support to restore access.", error: "workspace_frozen" });
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

// Issue 15: what the edge checks in a bearer JWT, the plan it grants, machine-readable 401/403 bodies with their
// challenge, and requests that carry one credential twice.
describe("authentication: edge hardening", () => {
  const secret = new TextEncoder().encode(DEFAULT_JWT_SECRET);
  /** A JWT signed with the gateway's secret, with exactly the claims given (times in epoch seconds). */
  const signed = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(secret);
  const nowS = () => Math.floor(g.clock.now() / 1000);
  const good = () => ({ iss: JWT_ISSUER, aud: JWT_AUDIENCE, sub: "usr_01MockUser000000000000000", workspace_id: "ws_JwtEdge0001", plan: "pro", iat: nowS(), exp: nowS() + 600 });
  const bearer = async (claims: Record<string, unknown>) => getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${await signed(claims)}` } });

  it("accepts a token with the fixed iss and aud, a lifetime within the maximum and iat within the clock skew", async () => {
    expect((await bearer(good())).status).toBe(200);
    expect((await bearer({ ...good(), iat: nowS() + JWT_CLOCK_SKEW_SECONDS })).status).toBe(200);
    expect((await bearer({ ...good(), exp: nowS() + JWT_MAX_LIFETIME_SECONDS })).status).toBe(200);
  });

  it.each([
    ["another issuer", { iss: "https://idp.evil.example" }],
    ["no issuer", { iss: undefined }],
    ["another audience", { aud: "some-other-api" }],
    ["no audience", { aud: undefined }],
    ["no iat", { iat: undefined }],
    ["no sub", { sub: undefined }],
    ["iat in the future beyond the clock skew", { iat: 10_000_000_000, exp: 10_000_000_060 }],
    ["exp in 2200 (lifetime over the maximum)", { exp: Date.UTC(2200, 0, 1) / 1000 }],
    ["a lifetime one second over the maximum", { exp: "iat+max+1" }],
    ["nbf beyond the clock skew", { nbf: "now+skew+1" }],
  ])("refuses %s with 401 invalid_credentials", async (_what, override) => {
    const claims: Record<string, unknown> = { ...good(), ...override };
    if (claims.exp === "iat+max+1") claims.exp = (claims.iat as number) + JWT_MAX_LIFETIME_SECONDS + 1;
    if (claims.nbf === "now+skew+1") claims.nbf = nowS() + JWT_CLOCK_SKEW_SECONDS + 1;
    for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
    const r = await bearer(claims);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: MESSAGES.invalidToken, error: "invalid_credentials" });
  });

  it("a plan claim never overrides the plan of a known workspace (decision M5)", async () => {
    const r = await bearer({ ...good(), workspace_id: "ws_DemoFree0000", plan: "business" });
    expect(r.status).toBe(200);
    expect(rateHeaders(r.headers).limit).toBe(minuteLimit(policy, "free", policy.categories.find((c) => c.default)!));
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"])("refuses the plan claim %j (not a plan of the policy) with 401", async (plan) => {
    const r = await bearer({ ...good(), plan });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: MESSAGES.tokenClaims, error: "invalid_credentials" });
    const h = rateHeaders(r.headers);
    expect(Number.isInteger(h.limit) && Number.isInteger(h.remaining) && Number.isInteger(h.dailyLimit)).toBe(true);
  });

  it("401 bodies carry a machine-readable error code and the WWW-Authenticate challenge of the failure", async () => {
    g.clock.advance(60_000); // a fresh minute for the anonymous bucket that counts these 401s
    const jwt = await token({ expiresInSeconds: 60 });
    const expired = await token({ expiresInSeconds: -60 });
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ["/v1/analyses", {}, "missing_credentials", CHALLENGES.missing],
      ["/v1/analyses?token=pk_test_demo_pro", {}, "missing_credentials", CHALLENGES.missing],
      ["/v1/analyses", { Authorization: "Basic dXNlcjpwYXNz" }, "invalid_credentials", CHALLENGES.missing],
      ["/v1/analyses", apiKey("pk_test_not_a_real_key"), "invalid_credentials", CHALLENGES.invalidKey],
      ["/v1/analyses", apiKey("sk_test_wrong_prefix"), "invalid_credentials", CHALLENGES.invalidKey],
      ["/v1/analyses", { Authorization: "Bearer not.a.jwt" }, "invalid_credentials", CHALLENGES.invalidToken],
      ["/v1/analyses", { Authorization: `Bearer ${expired}` }, "token_expired", CHALLENGES.invalidToken],
      [`/v1/analysis/${ANALYSIS_ID}/stream?token=pk_test_unknown_0000`, {}, "invalid_credentials", CHALLENGES.invalidKey],
      [`/v1/analysis/${ANALYSIS_ID}/stream?token=${expired}`, {}, "token_expired", CHALLENGES.invalidToken],
    ];
    for (const [path, headers, error, challenge] of cases) {
      const r = await getJson(g.url + path, { headers });
      expect(r.status, path).toBe(401);
      expect(r.body.error, `${path} ${JSON.stringify(headers)}`).toBe(error);
      expect(typeof r.body.detail).toBe("string");
      expect(r.headers.get("www-authenticate"), `${path} ${JSON.stringify(headers)}`).toBe(challenge);
    }
    const ok = await getJson(`${g.url}/v1/analyses`, { headers: { Authorization: `Bearer ${jwt}` } });
    expect(ok.headers.get("www-authenticate")).toBeNull();
    const refused = await wsSession(`${g.url.replace("http", "ws")}/v1/stream`).catch((e) => e);
    expect([refused.status, refused.body.error, refused.headers["www-authenticate"]]).toEqual([401, "missing_credentials", CHALLENGES.missing]);
  });

  it("a frozen workspace's 403 carries error workspace_frozen and no challenge", async () => {
    const r = await getJson(`${g.url}/v1/analyses`, { headers: apiKey("pk_test_demo_frozen") });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ detail: MESSAGES.frozen, error: "workspace_frozen" });
    expect(r.headers.get("www-authenticate")).toBeNull();
  });

  it("answers 401 to two X-API-Key or two Authorization headers instead of silently using one", async () => {
    g.clock.advance(60_000);
    const jwt = await token();
    const cases: Array<[Array<[string, string]>, string, string]> = [
      [[["X-API-Key", "pk_test_demo_pro"], ["X-API-Key", "pk_test_demo_pro"]], MESSAGES.duplicateKey, CHALLENGES.duplicateKey],
      [[["X-API-Key", "pk_test_demo_free"], ["X-API-Key", "pk_test_demo_business"]], MESSAGES.duplicateKey, CHALLENGES.duplicateKey],
      [[["Authorization", `Bearer ${jwt}`], ["Authorization", "Bearer x"]], MESSAGES.duplicateAuthorization, CHALLENGES.duplicateAuthorization],
      [[["authorization", "Bearer x"], ["Authorization", `Bearer ${jwt}`]], MESSAGES.duplicateAuthorization, CHALLENGES.duplicateAuthorization],
    ];
    for (const [headers, detail, challenge] of cases) {
      const r = await rawRequest(new URL(g.url), { method: "GET", path: "/v1/analyses", headers });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(r.body.toString())).toEqual({ detail, error: "invalid_credentials" });
      expect(header(r, "www-authenticate")).toBe(challenge);
    }
    // One of each is no duplicate: X-API-Key wins over Authorization (decision M4).
    const both = await rawRequest(new URL(g.url), { method: "GET", path: "/v1/analyses", headers: [["X-API-Key", "pk_test_demo_starter"], ["Authorization", "Bearer x"]] });
    expect(both.status).toBe(200);
  });
});

describe("Authenticator", () => {
  const auth = new Authenticator({ keys: new KeyStore(demoKeys(policy)), policy, secret: DEFAULT_JWT_SECRET, clock: new ManualClock(), apiKeyHeader: "X-API-Key" });
  const none = new URLSearchParams();

  it("uses a credential only when it is sent once (headers as node:http's headersDistinct gives them)", async () => {
    expect(await auth.authenticate({ "x-api-key": ["pk_test_demo_pro"] }, none, null)).toMatchObject({ ok: true });
    expect(await auth.authenticate({ "x-api-key": ["pk_test_demo_pro", "pk_test_demo_pro"] }, none, null)).toMatchObject({ ok: false, error: "invalid_credentials", detail: MESSAGES.duplicateKey });
    expect(await auth.authenticate({ authorization: ["Bearer a", "Bearer b"] }, none, null)).toMatchObject({ ok: false, detail: MESSAGES.duplicateAuthorization });
  });
});
