// API keys for real (responders/keys.ts, keys.ts), over HTTP: a key made with POST /v1/keys authenticates at once
// in its creator's workspace and plan with its own rate_limit_rpm; lists and reads show it without its secret,
// demo keys included; PATCH renames and re-limits it within the plan; DELETE revokes it for good (401 key_revoked).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHALLENGES } from "../../../../src/mock/core/access/auth.js";
import { mintToken } from "../../../../src/mock/index.js";
import { seededKeyId } from "../../../../src/mock/core/access/keys.js";
import { apiKey, freshKey, getJson, rateHeaders, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
const owner = freshKey("business");
const other = freshKey("free");

beforeAll(async () => {
  g = await startGateway({ extraKeys: [owner, other] });
});
afterAll(() => g.close());

function call(method: string, path: string, o: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return getJson(g.url + path, {
    method,
    headers: { ...(o.key === undefined ? apiKey(owner.key) : o.key ? apiKey(o.key) : {}), ...(o.body !== undefined ? { "Content-Type": "application/json" } : {}), ...o.headers },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

async function create(body: object, key = owner.key) {
  const r = await call("POST", "/v1/keys", { key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

describe("POST /v1/keys", () => {
  it("creates a key whose secret, shown once, authenticates at once in the creator's workspace and plan", async () => {
    const k = await create({ name: "CI runner", environment: "test" });
    expect(schemaErrors("ApiKeyWithSecret", k)).toEqual([]);
    expect(k).toMatchObject({ name: "CI runner", environment: "test", prefix: "pk_test_", workspace_id: owner.workspace_id, rate_limit_rpm: null, revoked_at: null, last_used_at: null });
    expect(k.secret.startsWith(k.prefix) && k.secret.endsWith(k.last_four)).toBe(true);

    const plan = await call("GET", "/v1/billing/plan", { key: k.secret });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ workspace_id: owner.workspace_id, plan: "business", requests_per_minute: 300 });
    // Its requests count in the workspace's buckets: the owner sees them.
    const before = rateHeaders((await call("GET", "/v1/analyses")).headers).remaining;
    await call("GET", "/v1/analyses", { key: k.secret });
    expect(rateHeaders((await call("GET", "/v1/analyses")).headers).remaining).toBe(before - 2);
    // Shown once: no read shows the secret again.
    const read = await call("GET", `/v1/keys/${k.id}`);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify((await call("GET", "/v1/keys?limit=100")).body)).not.toContain(k.secret);
  });

  it("gives the key its rate_limit_rpm as a bucket of its own (decision G6)", async () => {
    const k = await create({ name: "batch", environment: "test", rate_limit_rpm: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call("GET", "/v1/analyses", { key: k.secret });
      statuses.push(r.status);
      if (i === 0) expect(rateHeaders(r.headers).limit).toBe(3);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await call("GET", "/v1/analyses")).status).toBe(200); // the workspace's other keys are not held back
  });

  it("refuses a rate_limit_rpm above the plan's per-minute limit, and an expires_at in the past (400)", async () => {
    const free = await call("POST", "/v1/keys", { key: other.key, body: { name: "too fast", environment: "test", rate_limit_rpm: 31 } });
    expect(free.status).toBe(400);
    expect(free.body.detail).toBe("rate_limit_rpm must be at most 30, the per-minute limit of the free plan.");
    expect((await call("POST", "/v1/keys", { key: other.key, body: { name: "ok", environment: "test", rate_limit_rpm: 30 } })).status).toBe(201);
    const past = await call("POST", "/v1/keys", { body: { name: "old", environment: "test", expires_at: "2020-01-01T00:00:00Z" } });
    expect([past.status, past.body.detail]).toEqual([400, "expires_at must be in the future."]);
  });

  it("a pk_test_ key cannot create a live key (403); a bearer token can", async () => {
    const r = await call("POST", "/v1/keys", { body: { name: "prod", environment: "live" } });
    expect([r.status, r.body.error]).toEqual([403, "insufficient_permission"]);
    const token = await mintToken({ secret: "avt-mock-gateway-dev-secret-not-for-production", workspaceId: owner.workspace_id, expiresInSeconds: 600, now: g.clock.now() });
    const live = await call("POST", "/v1/keys", { key: "", headers: { Authorization: `Bearer ${token}` }, body: { name: "prod", environment: "live" } });
    expect(live.status).toBe(201);
    expect(live.body.secret).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect((await call("GET", "/v1/analyses", { key: live.body.secret })).status).toBe(200);
  });

  it("a key past its expires_at answers 401 token_expired", async () => {
    const k = await create({ name: "short", environment: "test", expires_at: new Date(g.clock.now() + 60_000).toISOString() });
    expect((await call("GET", "/v1/analyses", { key: k.secret })).status).toBe(200);
    g.clock.advance(61_000);
    const r = await call("GET", "/v1/analyses", { key: k.secret });
    expect([r.status, r.body.error, r.body.detail]).toEqual([401, "token_expired", "This API key has expired. Create a new key."]);
  });

  it("with Prefer (even code=201), answers the contract's example, whose secret authenticates nothing", async () => {
    for (const prefer of ["example=default", "code=201"]) {
      const r = await call("POST", "/v1/keys", { body: { name: "x", environment: "test" }, headers: { Prefer: prefer } });
      expect([r.status, r.body.id]).toEqual([201, "key_01HZX6C8E2G4J6K8N0Q2S4T6W8"]);
      expect((await call("GET", "/v1/analyses", { key: r.body.secret })).status).toBe(401);
    }
    expect((await call("GET", "/v1/keys/key_01HZX6C8E2G4J6K8N0Q2S4T6W8", { headers: { Prefer: "code=404" } })).body.detail).toBe("Resource not found.");
  });
});

describe("GET /v1/keys and /v1/keys/{key_id}", () => {
  it("lists the workspace's keys newest first, the demo key too, with prefix and last four only", async () => {
    const r = await call("GET", "/v1/keys?limit=100", { key: "pk_test_demo_starter" });
    expect(r.status).toBe(200);
    expect(schemaErrors("ApiKeyList", r.body)).toEqual([]);
    expect(r.body.data).toEqual([
      expect.objectContaining({ id: seededKeyId("pk_test_demo_starter"), name: "Starter plan", prefix: "pk_test_", last_four: "rter", environment: "test", workspace_id: "ws_DemoStarter0" }),
    ]);
    expect(r.body.data[0].last_used_at).toBe(new Date(g.clock.now() - (g.clock.now() % 60_000)).toISOString().replace(".000Z", "Z"));
    const mine = await create({ name: "newest", environment: "test" });
    const list = (await call("GET", "/v1/keys?limit=100")).body.data;
    expect(list[0].id).toBe(mine.id);
    expect(list.at(-1).id).toBe(seededKeyId(owner.key));
  });

  it("pages with cursor and limit, and refuses a cursor it never gave out (400)", async () => {
    const ws = freshKey("pro");
    const h = await startGateway({ extraKeys: [ws] });
    try {
      const made = [];
      for (const name of ["a", "b", "c"]) made.push((await getJson(`${h.url}/v1/keys`, { method: "POST", headers: { ...apiKey(ws.key), "Content-Type": "application/json" }, body: JSON.stringify({ name, environment: "test" }) })).body);
      const p1 = (await getJson(`${h.url}/v1/keys?limit=2`, { headers: apiKey(ws.key) })).body;
      expect([p1.data.map((k: { name: string }) => k.name), p1.has_more]).toEqual([["c", "b"], true]);
      // Deleting an item already shown shifts nothing.
      await getJson(`${h.url}/v1/keys/${made[2].id}`, { method: "DELETE", headers: apiKey(ws.key) });
      const p2 = (await getJson(`${h.url}/v1/keys?limit=2&cursor=${p1.next_cursor}`, { headers: apiKey(ws.key) })).body;
      expect([p2.data.map((k: { name: string }) => k.name), p2.has_more, p2.next_cursor]).toEqual([["a", "Key from the keys file"], false, null]);
      const bad = await getJson(`${h.url}/v1/keys?cursor=bm9wZQ`, { headers: apiKey(ws.key) });
      expect(bad.status).toBe(400);
    } finally {
      await h.close();
    }
  });

  it("another workspace's key is not found (404)", async () => {
    const k = await create({ name: "mine", environment: "test" });
    const r = await call("GET", `/v1/keys/${k.id}`, { key: other.key });
    expect([r.status, r.body.detail]).toEqual([404, `API key ${k.id} not found.`]);
    expect((await call("DELETE", `/v1/keys/${k.id}`, { key: other.key })).status).toBe(404);
    expect((await call("GET", "/v1/analyses", { key: k.secret })).status).toBe(200);
  });
});

describe("PATCH /v1/keys/{key_id}", () => {
  it("renames and re-limits a key; null removes its own limit; above the plan answers 400, above every plan 422", async () => {
    const k = await create({ name: "sync", environment: "test", rate_limit_rpm: 5 });
    const up = await call("PATCH", `/v1/keys/${k.id}`, { body: { name: "sync (nightly)", rate_limit_rpm: 2 } });
    expect(up.status).toBe(200);
    expect(schemaErrors("ApiKey", up.body)).toEqual([]);
    expect(up.body).toMatchObject({ name: "sync (nightly)", rate_limit_rpm: 2 });
    expect(rateHeaders((await call("GET", "/v1/analyses", { key: k.secret })).headers).limit).toBe(2);
    // 301 is above the contract's own maximum (the largest plan's limit): the schema refuses it (422).
    expect((await call("PATCH", `/v1/keys/${k.id}`, { body: { rate_limit_rpm: 301 } })).status).toBe(422);
    // Within the contract but above this workspace's plan (free: 30 a minute): the plan rule refuses it (400).
    const small = await create({ name: "small", environment: "test" }, other.key);
    expect((await call("PATCH", `/v1/keys/${small.id}`, { key: other.key, body: { rate_limit_rpm: 31 } })).status).toBe(400);
    expect((await call("PATCH", `/v1/keys/${k.id}`, { body: { rate_limit_rpm: null } })).body.rate_limit_rpm).toBeNull();
    expect(rateHeaders((await call("GET", "/v1/analyses", { key: k.secret })).headers).limit).toBe(300);
  });
});

describe("DELETE /v1/keys/{key_id}", () => {
  it("revokes: the key answers 401 key_revoked; revoking again is 204 and keeps revoked_at; a revoked key cannot be changed (409)", async () => {
    const k = await create({ name: "leaked", environment: "test" });
    expect((await call("DELETE", `/v1/keys/${k.id}`)).status).toBe(204);
    const r = await call("GET", "/v1/analyses", { key: k.secret });
    expect([r.status, r.body.error, r.headers.get("www-authenticate")]).toEqual([401, "key_revoked", CHALLENGES.invalidKey]);
    const revokedAt = (await call("GET", `/v1/keys/${k.id}`)).body.revoked_at;
    expect(revokedAt).toBe(new Date(g.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z"));
    g.clock.advance(5000);
    expect((await call("DELETE", `/v1/keys/${k.id}`)).status).toBe(204);
    expect((await call("GET", `/v1/keys/${k.id}`)).body.revoked_at).toBe(revokedAt);
    expect((await call("PATCH", `/v1/keys/${k.id}`, { body: { name: "again" } })).status).toBe(409);
    expect((await call("GET", "/v1/keys?limit=100")).body.data.find((x: { id: string }) => x.id === k.id).revoked_at).toBe(revokedAt);
  });

  it("a key may revoke itself; an unknown key id answers 404", async () => {
    const k = await create({ name: "self", environment: "test" });
    expect((await call("DELETE", `/v1/keys/${k.id}`, { key: k.secret })).status).toBe(204);
    expect((await call("GET", "/v1/analyses", { key: k.secret })).status).toBe(401);
    expect((await call("DELETE", "/v1/keys/key_00000000000000000000000000")).status).toBe(404);
  });
});
