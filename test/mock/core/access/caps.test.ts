// Issue 22 item 2: caps, not eviction. Each cap answers its 403 `limit_reached` or 503 `capacity_exceeded` and
// deletes nothing (decisions SH*); the numbers are small here so the tests stay quick.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { seededKeyId } from "../../../../src/mock/core/access/keys.js";
import { call, freshKey, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

const analysis = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Q4 call" };
const board = (name: string) => ({ name, widgets: [] });

describe("remembered workspaces", () => {
  const keys = Array.from({ length: 5 }, () => freshKey("pro"));
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: keys, limits: { workspaces: 3 } })));
  afterAll(() => g.close());

  it("a new workspace beyond --max-workspaces answers 503 capacity_exceeded; no workspace is forgotten", async () => {
    const created = [];
    for (const k of keys.slice(0, 3)) {
      const r = await call(g.url, "POST", "/v1/boards", { key: k.key, body: board("mine") });
      expect(r.status).toBe(201);
      created.push(r.body.id);
    }
    for (const k of keys.slice(3)) {
      const r = await call(g.url, "GET", "/v1/boards", { key: k.key });
      expect(r.status).toBe(503);
      expect(r.body.error).toBe("capacity_exceeded");
      expect(r.body.detail).toMatch(/--max-workspaces/);
      expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    }
    for (const [i, k] of keys.slice(0, 3).entries()) expect((await call(g.url, "GET", `/v1/boards/${created[i]}`, { key: k.key })).status).toBe(200);
  });
});

describe("records per collection per workspace", () => {
  const key = freshKey("pro");
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: [key], limits: { records: 4 } })));
  afterAll(() => g.close());

  it("a create beyond --max-records answers 403 limit_reached; deleting one makes room", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call(g.url, "POST", "/v1/boards", { key: key.key, body: board(`b${i}`) }));
    const refused = answers.filter((a) => a.status === 403);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body).toMatchObject({ error: "limit_reached" });
    expect(refused[0]!.body.detail).toMatch(/--max-records/);
    const made = answers.filter((a) => a.status === 201);
    expect(made.length).toBeLessThanOrEqual(4);
    expect((await call(g.url, "DELETE", `/v1/boards/${made[0]!.body.id}`, { key: key.key })).status).toBe(204);
    expect((await call(g.url, "POST", "/v1/boards", { key: key.key, body: board("again") })).status).toBe(201);
  });
});

describe("lifecycle steps pending at once", () => {
  const key = freshKey("business");
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: [key], limits: { lifecycleTimers: 3 } })));
  afterAll(() => g.close());

  it("a create beyond --max-lifecycle-timers answers 503 capacity_exceeded until the lifecycles finish", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call(g.url, "POST", "/v1/analyses", { key: key.key, body: analysis }));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body.error).toBe("capacity_exceeded");
    for (let i = 0; i < 50; i++) g.clock.advance(STEP_MS);
    expect((await call(g.url, "POST", "/v1/analyses", { key: key.key, body: analysis })).status).toBe(202);
  });
});

describe("API keys: no self-escalation, shared demo keys protected, a cap per workspace", () => {
  const capped = freshKey("pro", { rate_limit_rpm: 10 });
  const owner = freshKey("pro");
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: [capped, owner], limits: { keys: 5 } })));
  afterAll(() => g.close());
  const as = (key: string) => (method: string, path: string, body?: unknown) => call(g.url, method, path, { key, body });

  it("a key capped at rate_limit_rpm cannot lift its own cap nor create an uncapped or higher sibling (403)", async () => {
    const ask = as(capped.key);
    const own = seededKeyId(capped.key);
    for (const rpm of [null, 11, 50]) {
      const r = await ask("PATCH", `/v1/keys/${own}`, { rate_limit_rpm: rpm });
      expect([r.status, r.body.error], String(rpm)).toEqual([403, "insufficient_permission"]);
    }
    for (const body of [{ name: "sib", environment: "test" }, { name: "sib", environment: "test", rate_limit_rpm: 11 }]) {
      const r = await ask("POST", "/v1/keys", body);
      expect([r.status, r.body.error]).toEqual([403, "insufficient_permission"]);
    }
    expect((await call(g.url, "GET", "/v1/analyses", { key: capped.key })).headers.get("x-ratelimit-limit")).toBe("10");
    // Lowering, or a sibling at or under the cap, is allowed.
    expect((await ask("PATCH", `/v1/keys/${own}`, { rate_limit_rpm: 8 })).status).toBe(200);
    expect((await ask("POST", "/v1/keys", { name: "sib", environment: "test", rate_limit_rpm: 8 })).status).toBe(201);
  });

  it("no key can revoke or change a shared demo key (403); the demo key keeps working", async () => {
    for (const demo of ["pk_test_demo_pro", "pk_test_demo_limited"]) {
      const id = seededKeyId(demo);
      const revoke = await call(g.url, "DELETE", `/v1/keys/${id}`, { key: demo });
      expect([revoke.status, revoke.body.error]).toEqual([403, "insufficient_permission"]);
      const patch = await call(g.url, "PATCH", `/v1/keys/${id}`, { key: demo, body: { name: "mine now" } });
      expect(patch.status).toBe(403);
      expect((await call(g.url, "GET", "/v1/analyses", { key: demo })).status).toBe(200);
    }
  });

  it("a create beyond --max-keys answers 403 limit_reached; no key is deleted", async () => {
    const ask = as(owner.key);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask("POST", "/v1/keys", { name: `k${i}`, environment: "test" })).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(4); // the key it started with counts
    const refused = await ask("POST", "/v1/keys", { name: "one more", environment: "test" });
    expect([refused.status, refused.body.error]).toEqual([403, "limit_reached"]);
    expect((await ask("GET", "/v1/keys?limit=100")).body.data).toHaveLength(5);
  });
});

describe("open streams and connections", () => {
  const a = freshKey("pro");
  const b = freshKey("pro");
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: [a, b], limits: { streamsPerWorkspace: 2, streamsPerAddress: 3, streamIdleMs: 1000, connections: 40 } })));
  afterAll(() => g.close());

  /** A queued analysis of `key`'s workspace: the manual scheduler never moves it, so its streams stay open and quiet. */
  const queued = async (key: string) => (await call(g.url, "POST", "/v1/analyses", { key, body: analysis })).body.id as string;
  const sse = (key: string, id: string) => fetch(`${g.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": key } });
  const ws = (key: string, id: string) =>
    new Promise<{ status: number; body: any } | WebSocket>((resolve) => {
      const s = new WebSocket(`${g.url.replace("http", "ws")}/ws/analyses/${id}`, { headers: { "X-API-Key": key } });
      s.on("open", () => resolve(s));
      s.on("unexpected-response", (_q, res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(body) }));
      });
    });

  it("per workspace (403 limit_reached, SSE and WebSocket alike) and per address (503 capacity_exceeded); a closed stream frees its slot", async () => {
    const idA = await queued(a.key);
    const idB = await queued(b.key);
    const first = await sse(a.key, idA);
    const second = (await ws(a.key, idA)) as WebSocket;
    expect(first.status).toBe(200);
    const third = await sse(a.key, idA);
    expect([third.status, (await third.json()).error]).toEqual([403, "limit_reached"]);
    expect(await ws(a.key, idA)).toMatchObject({ status: 403, body: { error: "limit_reached" } });
    const other = await sse(b.key, idB); // the address's third
    expect(other.status).toBe(200);
    const fourth = await sse(b.key, idB);
    expect([fourth.status, (await fourth.json()).error, fourth.headers.get("retry-after")]).toEqual([503, "capacity_exceeded", "5"]);
    await first.body!.cancel();
    second.close();
    await other.body!.cancel();
    await vi.waitFor(async () => {
      const again = await sse(a.key, idA);
      expect(again.status).toBe(200);
      await again.body!.cancel();
    });
  });

  it("a stream that shows no event for --stream-idle-ms ends (SSE ends; WebSocket closes 1001)", async () => {
    const id = await queued(a.key);
    const res = await sse(a.key, id);
    expect(res.status).toBe(200);
    await res.text(); // resolves only once the gateway ends the quiet stream
    const socket = (await ws(a.key, id)) as WebSocket;
    const code = await new Promise((resolve) => socket.on("close", resolve));
    expect(code).toBe(1001);
  });

  it("a connection beyond --max-connections is answered 503 capacity_exceeded and closed", async () => {
    const port = Number(new URL(g.url).port);
    const sockets = await Promise.all(Array.from({ length: 40 }, () => new Promise<net.Socket>((r) => { const s = net.connect(port, "127.0.0.1", () => r(s)); })));
    try {
      const extra = net.connect(port, "127.0.0.1");
      const text = await new Promise<string>((resolve) => {
        let got = "";
        extra.on("data", (c) => (got += c)).on("close", () => resolve(got)).on("error", () => resolve(got));
      });
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      expect(text).toContain('"error":"capacity_exceeded"');
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe("webhooks per workspace", () => {
  const key = freshKey("pro");
  let g: TestGateway & { clock: SimulatedClock };
  beforeAll(async () => (g = await startStateful({ extraKeys: [key], limits: { webhooks: 2 } })));
  afterAll(() => g.close());

  it("--max-webhooks moves the contract's 409", async () => {
    const make = () => call(g.url, "POST", "/v1/webhooks", { key: key.key, body: { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] } });
    expect([(await make()).status, (await make()).status]).toEqual([201, 201]);
    const third = await make();
    expect(third.status).toBe(409);
    expect(third.body.detail).toMatch(/at most 2 webhooks/);
  });
});
