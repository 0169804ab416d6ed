// Issue 22, items 1 and 2: what one client can make the mock do on a shared host. Each case here failed before
// its fix (decisions SH*): generation without bounds, quadratic forms, unknown fields by the hundred thousand.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SELF_TARGET_NOTICE } from "../../../../src/mock/core/events/webhooks.js";
import { createGateway, DEFAULT_JWT_SECRET, isLoopbackHost, PublicSecretError, refusePublicSecret, startSecret } from "../../../../src/mock/index.js";
import { contract } from "../../../helpers/mock.js";
import { call, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";

const COMPLETED = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";

/** The longest array anywhere in `v`. */
function longestArray(v: unknown): number {
  if (Array.isArray(v)) return Math.max(v.length, ...v.map(longestArray));
  if (v && typeof v === "object") return Math.max(0, ...Object.values(v).map(longestArray));
  return 0;
}

describe("dynamic generation (Prefer: dynamic=true) is bounded", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ limits: { dynamicItems: 2, dynamicLength: 30 } });
    await g.gateway.ready;
  });
  afterAll(() => g.close());

  it("generates arrays of at most --dynamic-max-items items", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await call(g.url, "GET", "/v1/boards", { headers: { Prefer: "dynamic=true" } });
      expect(r.status).toBe(200);
      expect(longestArray(r.body)).toBeLessThanOrEqual(2);
    }
  });

  it("answers the transcript (100,000 segments of 50,000 words allowed) small, and ?__dynamic=true alike", async () => {
    for (const ask of [{ headers: { Prefer: "dynamic=true" } }, {}]) {
      const path = `/v1/analyses/${COMPLETED}/transcript${"headers" in ask ? "" : "?__dynamic=true"}`;
      const r = await call(g.url, "GET", path, ask);
      expect(r.status).toBe(200);
      expect(longestArray(r.body)).toBeLessThanOrEqual(2);
      expect(JSON.stringify(r.body).length).toBeLessThan(64 * 1024);
    }
  });
});

describe("request bodies are read in linear time, with caps", () => {
  let g: TestGateway;
  beforeAll(async () => (g = await startGateway({ limits: { formFields: 50, jsonMembers: 300 } })));
  afterAll(() => g.close());

  const form = (fields: number) => {
    const p = new URLSearchParams({ grant_type: "client_credentials", client_id: "cli_x" });
    for (let i = 0; i < fields; i++) p.append(`f${i}`, "x");
    return p.toString();
  };
  const postForm = (body: string) =>
    fetch(`${g.url}/v1/oauth/token`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/x-www-form-urlencoded" }, body });

  it("answers a form of more than --max-form-fields fields 400, naming the cap", async () => {
    const r = await postForm(form(60));
    expect(r.status).toBe(400);
    expect((await r.json()).detail).toMatch(/more than 50 fields/);
  });

  it("answers a multipart form of more than --max-form-fields parts 400 too", async () => {
    const fd = new FormData();
    for (let i = 0; i < 60; i++) fd.append(`f${i}`, "x");
    const r = await fetch(`${g.url}/v1/analyses/upload`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro" }, body: fd });
    expect(r.status).toBe(400);
    expect((await r.json()).detail).toMatch(/more than 50 fields/);
  });

  it("reads a form within the cap as before", async () => {
    const r = await postForm(form(10));
    expect(r.status).not.toBe(400);
  });

  it("answers a JSON body of more than --max-json-members members 400 before validation", async () => {
    const body: Record<string, unknown> = { name: "b", widgets: [] };
    for (let i = 0; i < 400; i++) body[`unknown_${i}`] = i;
    const r = await call(g.url, "POST", "/v1/boards", { body });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/more than 300 object members/);
  });

  it("counts members at every level", async () => {
    const nested = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, i]));
    const r = await call(g.url, "POST", "/v1/boards", { body: { name: "b", widgets: [{ x: nested }] } });
    expect(r.status).toBe(400);
  });
});

describe("webhooks never reach the gateway itself or /__mock/", () => {
  let g: TestGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    g = await startGateway();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await g.close();
    await receiver.close();
  });

  it("stores them, never calls them, and says so; the state survives", async () => {
    const port = new URL(g.url).port;
    const other = new URL(receiver.url).origin;
    const urls = [
      `http://localhost:${port}/__mock/reset`,
      `http://[::1]:${port}/v1/boards`,
      `${other}/__mock/reset`,
      `${other}/x/../__MOCK/reset`,
      `${other}/%5F_mock/reset`,
    ];
    const board = await call(g.url, "POST", "/v1/boards", { body: { name: "kept", widgets: [] } });
    expect(board.status).toBe(201);
    for (const url of urls) {
      const r = await call(g.url, "POST", "/v1/webhooks", { body: { url, event_types: ["report.ready"] } });
      expect(r.status, url).toBe(201);
      expect(r.headers.get("x-mock-notice"), url).toBe(SELF_TARGET_NOTICE);
      const t = await call(g.url, "POST", `/v1/webhooks/${r.body.id}/test`, { body: { event_type: "report.ready" } });
      expect(t.status).toBe(202);
      await call(g.url, "DELETE", `/v1/webhooks/${r.body.id}`);
    }
    // Two deliveries per URL (the sample after registering, the test): each logged as not sent.
    await vi.waitFor(() => expect(g.logs.filter((l) => /not sent: the URL reaches the mock gateway itself/.test(l))).toHaveLength(urls.length * 2));
    expect(receiver.deliveries).toHaveLength(0);
    expect((await call(g.url, "GET", `/v1/boards/${board.body.id}`)).status).toBe(200);
  });
});

describe("the JWT secret is never the public one beyond loopback", () => {
  it("tells loopback addresses from the rest", () => {
    for (const h of ["127.0.0.1", "127.9.9.9", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "example.test", "::ffff:10.0.0.1"]) expect(isLoopbackHost(h), h).toBe(false);
  });

  it("a gateway with the public default refuses to listen beyond loopback, before it listens", async () => {
    const g = await createGateway({ contract, log: null, jwtSecret: DEFAULT_JWT_SECRET });
    try {
      await expect(g.listen(0, "0.0.0.0")).rejects.toBeInstanceOf(PublicSecretError);
      expect(g.server.listening).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("a secret shorter than 32 bytes refuses to listen beyond loopback (anyone could guess it); on loopback it serves", async () => {
    const short = await createGateway({ contract, log: null, jwtSecret: "x" });
    try {
      await expect(short.listen(0, "0.0.0.0")).rejects.toThrow(/MOCK_JWT_SECRET is 1 byte.*at least 32/);
      expect(short.server.listening).toBe(false);
    } finally {
      await short.close();
    }
    expect(() => refusePublicSecret("127.0.0.1", "x")).not.toThrow();
    expect(() => refusePublicSecret("0.0.0.0", "k".repeat(32))).not.toThrow();
  });

  it("npm start makes a secret per process beyond loopback, unless MOCK_JWT_SECRET is set; none on loopback", () => {
    const a = startSecret("0.0.0.0", {});
    const b = startSecret("0.0.0.0", {});
    expect(a.generated && b.generated).toBe(true);
    expect(a.secret).not.toBe(b.secret);
    expect(a.secret).not.toBe(DEFAULT_JWT_SECRET);
    expect(a.secret!.length).toBeGreaterThanOrEqual(32);
    expect(startSecret("0.0.0.0", { MOCK_JWT_SECRET: "mine" })).toEqual({ secret: "mine", generated: false });
    expect(startSecret("127.0.0.1", {})).toEqual({ secret: undefined, generated: false });
  });
});
