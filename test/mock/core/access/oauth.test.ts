// OAuth per grant type (oauth.ts, responders/oauth.ts), over HTTP: client_credentials never returns a refresh
// token; authorization_code returns access and refresh tokens, once per code; refresh_token rotates; the access
// tokens are JWTs the mock itself accepts, in the caller's workspace; revocation (RFC 7009) stops a token.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JWT_AUDIENCE, JWT_ISSUER } from "../../../../src/mock/core/access/auth.js";
import { DEFAULT_JWT_SECRET, mintToken } from "../../../../src/mock/index.js";
import { apiKey, getJson, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const CLIENT = "northwind-crm-connector";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
let codes = 0;

function form(path: string, fields: Record<string, string>, key = "pk_test_demo_business") {
  return getJson(`${g.url}${path}`, { method: "POST", headers: { ...apiKey(key), "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}
const token = (fields: Record<string, string>, key?: string) => form("/v1/oauth/token", fields, key);
const revoke = (t: string) => form("/v1/oauth/revoke", { token: t });
const code = (extra: Record<string, string> = {}) =>
  token({ grant_type: "authorization_code", code: `ac_test${++codes}`, redirect_uri: "https://app.northwind.example/oauth/callback", code_verifier: VERIFIER, client_id: CLIENT, ...extra });
const bearer = (t: string, path = "/v1/billing/plan") => getJson(`${g.url}${path}`, { headers: { Authorization: `Bearer ${t}` } });

describe("POST /v1/oauth/token", () => {
  it("client_credentials: an access token for the client, never a refresh token, not cached", async () => {
    const r = await token({ grant_type: "client_credentials", client_id: CLIENT, scope: "analyses:read analyses:write" });
    expect(r.status).toBe(200);
    expect(schemaErrors("OAuthToken", r.body)).toEqual([]);
    expect(r.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, refresh_token: null, scope: "analyses:read analyses:write" });
    expect([r.headers.get("cache-control"), r.headers.get("pragma")]).toEqual(["no-store", "no-cache"]);
    expect(decodeJwt(r.body.access_token)).toMatchObject({ iss: JWT_ISSUER, aud: JWT_AUDIENCE, sub: CLIENT, workspace_id: "ws_DemoBusiness", scope: "analyses:read analyses:write" });
  });

  it("the access token works at once as a bearer token, in the caller's workspace", async () => {
    const r = await token({ grant_type: "client_credentials", client_id: CLIENT }, "pk_test_demo_starter");
    const plan = await bearer(r.body.access_token);
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ workspace_id: "ws_DemoStarter0", plan: "starter" });
  });

  it("without scope, grants read and write on every resource group", async () => {
    const r = await token({ grant_type: "client_credentials", client_id: CLIENT });
    expect(r.body.scope.split(" ")).toEqual(expect.arrayContaining(["analyses:read", "analyses:write", "webhooks:read", "use_cases:write"]));
  });

  it("authorization_code: an access and a refresh token; a code works once", async () => {
    const fields = { code: `ac_once${++codes}` };
    const r = await code(fields);
    expect(r.status).toBe(200);
    expect(schemaErrors("OAuthToken", r.body)).toEqual([]);
    expect(r.body.refresh_token).toMatch(/^rt_[0-9A-Za-z]{32}$/);
    expect(decodeJwt(r.body.access_token)).toMatchObject({ sub: "usr_01MockUser000000000000000", client_id: CLIENT });
    expect((await bearer(r.body.access_token)).status).toBe(200);
    const again = await code(fields);
    expect([again.status, again.body]).toEqual([400, { error: "invalid_grant", detail: "The authorization code has already been used." }]);
    expect(schemaErrors("Error", again.body)).toEqual([]);
  });

  it("refresh_token rotates: a new pair, and the old refresh token stops working", async () => {
    const first = (await code({ scope: "analyses:read reports:read" })).body;
    const second = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: CLIENT });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe("analyses:read reports:read");
    // The token's scope allows reading reports, not the billing plan (x-scopes, decision RM4).
    expect((await bearer(second.body.access_token, "/v1/reports")).status).toBe(200);
    expect((await bearer(second.body.access_token)).status).toBe(403);
    const reused = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: CLIENT });
    expect([reused.status, reused.body.error]).toEqual([400, "invalid_grant"]);
    const third = await token({ grant_type: "refresh_token", refresh_token: second.body.refresh_token, client_id: CLIENT, scope: "reports:read" });
    expect([third.status, third.body.scope]).toEqual([200, "reports:read"]);
  });

  it("refuses a refresh token of another client or workspace, or a wider scope (400)", async () => {
    const t = (await code({ scope: "analyses:read" })).body;
    const otherClient = await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: "someone-else" });
    expect([otherClient.status, otherClient.body.error]).toEqual([400, "invalid_grant"]);
    const otherWorkspace = await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: CLIENT }, "pk_test_demo_pro");
    expect([otherWorkspace.status, otherWorkspace.body.error]).toEqual([400, "invalid_grant"]);
    const wider = await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: CLIENT, scope: "analyses:read billing:write" });
    expect([wider.status, wider.body.error, wider.body.detail]).toEqual([400, "invalid_scope", "The scope is wider than the one granted: billing:write was not granted."]);
    // None of these used it up.
    expect((await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: CLIENT })).status).toBe(200);
  });

  it("an access token expires after expires_in seconds (401 token_expired)", async () => {
    const r = await token({ grant_type: "client_credentials", client_id: CLIENT });
    g.clock.advance(3600 * 1000);
    const late = await bearer(r.body.access_token);
    expect([late.status, late.body.error]).toEqual([401, "token_expired"]);
  });

  it("with Prefer, answers the contract's example", async () => {
    const r = await getJson(`${g.url}/v1/oauth/token`, {
      method: "POST",
      headers: { ...apiKey("pk_test_demo_business"), "Content-Type": "application/x-www-form-urlencoded", Prefer: "example=client_credentials" },
      body: "grant_type=client_credentials&client_id=x",
    });
    expect(r.body.access_token).toBe("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJub3J0aHdpbmQtY3JtLWNvbm5lY3RvciJ9.c2lnbmF0dXJl");
  });
});

describe("POST /v1/oauth/revoke", () => {
  it("revokes an access token: then 401 token_revoked; other tokens keep working", async () => {
    const a = (await token({ grant_type: "client_credentials", client_id: CLIENT })).body.access_token;
    const b = (await token({ grant_type: "client_credentials", client_id: CLIENT })).body.access_token;
    const r = await revoke(a);
    expect([r.status, r.body]).toEqual([200, { revoked: true }]);
    const after = await bearer(a);
    expect([after.status, after.body.error, after.body.detail]).toEqual([401, "token_revoked", "The bearer token has been revoked."]);
    expect((await bearer(b)).status).toBe(200);
  });

  it("revokes a refresh token and the access tokens issued under it", async () => {
    const t = (await code()).body;
    const rotated = (await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: CLIENT })).body;
    expect((await revoke(rotated.refresh_token)).status).toBe(200);
    for (const access of [t.access_token, rotated.access_token]) expect((await bearer(access)).body.error).toBe("token_revoked");
    expect((await token({ grant_type: "refresh_token", refresh_token: rotated.refresh_token, client_id: CLIENT })).body.error).toBe("invalid_grant");
  });

  it("revokes a token of npm run mock:token too, and answers 200 for anything unknown (RFC 7009)", async () => {
    const dev = await mintToken({ secret: DEFAULT_JWT_SECRET, workspaceId: "ws_DemoPro00000", expiresInSeconds: 600, now: g.clock.now() });
    expect((await bearer(dev)).status).toBe(200);
    await revoke(dev);
    expect((await bearer(dev)).status).toBe(401);
    for (const junk of ["rt_unknown", "not-a-token", "eyJ.eyJ.sig"]) expect(await revoke(junk).then((r) => [r.status, r.body])).toEqual([200, { revoked: true }]);
  });
});

describe("a scoped token never mints a wider one (issue 29)", () => {
  const form2 = (t: string, fields: Record<string, string>) =>
    getJson(`${g.url}/v1/oauth/token`, { method: "POST", headers: { Authorization: `Bearer ${t}`, "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
  const scoped = async () => (await token({ grant_type: "client_credentials", client_id: CLIENT, scope: "boards:read analyses:read" })).body.access_token as string;

  it("client_credentials from a scoped token: no scope gets the caller's own; a wider one answers 400 invalid_scope", async () => {
    const t = await scoped();
    const same = await form2(t, { grant_type: "client_credentials", client_id: CLIENT });
    expect(same.status).toBe(200);
    expect(same.body.scope.split(" ").sort()).toEqual(["analyses:read", "boards:read"]);
    const wider = await form2(t, { grant_type: "client_credentials", client_id: CLIENT, scope: "boards:read boards:write" });
    expect(wider.status).toBe(400);
    expect(wider.body).toMatchObject({ error: "invalid_scope" });
    expect(wider.body.detail).toContain("boards:write");
    // And the token it got still cannot create a board.
    const board = await getJson(`${g.url}/v1/boards`, { method: "POST", headers: { Authorization: `Bearer ${same.body.access_token}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "Escalated" }) });
    expect(board.status).toBe(403);
  });

  it("authorization_code from a scoped token is bounded the same way", async () => {
    const t = await scoped();
    const r = await form2(t, { grant_type: "authorization_code", code: `ac_scoped${++codes}`, redirect_uri: "https://app.northwind.example/oauth/callback", code_verifier: VERIFIER, client_id: CLIENT, scope: "keys:write" });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "invalid_scope" });
  });
});

describe("a key is never wider than its maker, and revoking needs keys:write (issue 47)", () => {
  const withBearer = (t: string, path: string, body: unknown, type = "application/json") =>
    getJson(`${g.url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${t}`, "Content-Type": type }, body: type === "application/json" ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString() });
  const scopedToken = async (scope: string) => (await token({ grant_type: "client_credentials", client_id: CLIENT, scope })).body.access_token as string;

  it("a keys:write-only token creates a key holding keys:write alone: it cannot create boards nor mint a wider token", async () => {
    const t = await scopedToken("keys:write");
    const made = await withBearer(t, "/v1/keys", { name: "Made by a narrow token", environment: "test" });
    expect(made.status).toBe(201);
    expect(made.body.scope).toEqual("keys:write");
    const key: string = made.body.secret;
    const board = await getJson(`${g.url}/v1/boards`, { method: "POST", headers: { ...apiKey(key), "Content-Type": "application/json" }, body: JSON.stringify({ name: "Escalated by key" }) });
    expect([board.status, board.body.error]).toEqual([403, "insufficient_permission"]);
    const all = await token({ grant_type: "client_credentials", client_id: CLIENT }, key);
    expect([all.status, all.body.scope]).toEqual([200, "keys:write"]);
    const wider = await token({ grant_type: "client_credentials", client_id: CLIENT, scope: "boards:write" }, key);
    expect([wider.status, wider.body.error]).toEqual([400, "invalid_scope"]);
    // A key it makes in turn is no wider either, and GET shows the scopes too.
    const grandchild = await getJson(`${g.url}/v1/keys`, { method: "POST", headers: { ...apiKey(key), "Content-Type": "application/json" }, body: JSON.stringify({ name: "Made by the narrow key", environment: "test" }) });
    expect([grandchild.status, grandchild.body.scope]).toEqual([201, "keys:write"]);
    const shown = await getJson(`${g.url}/v1/keys/${made.body.id}`, { headers: apiKey("pk_test_demo_business") });
    expect(shown.body.scope).toEqual("keys:write");
  });

  it("a key made without a scoped caller has scopes null and is not limited", async () => {
    const made = await getJson(`${g.url}/v1/keys`, { method: "POST", headers: { ...apiKey("pk_test_demo_business"), "Content-Type": "application/json" }, body: JSON.stringify({ name: "Unlimited", environment: "test" }) });
    expect([made.status, made.body.scope]).toEqual([201, null]);
  });

  it("a boards:read token cannot revoke a token (403 naming keys:write); a keys:write one can", async () => {
    const victim = await scopedToken("analyses:read");
    const reader = await scopedToken("boards:read");
    const refused = await withBearer(reader, "/v1/oauth/revoke", { token: victim }, "application/x-www-form-urlencoded");
    expect([refused.status, refused.body.error]).toEqual([403, "insufficient_permission"]);
    expect(refused.body.detail).toContain("keys:write");
    expect((await bearer(victim, "/v1/analyses")).status).toBe(200);
    const admin = await scopedToken("keys:write");
    expect((await withBearer(admin, "/v1/oauth/revoke", { token: victim }, "application/x-www-form-urlencoded")).status).toBe(200);
    expect((await bearer(victim, "/v1/analyses")).status).toBe(401);
  });
});
