// Issue 22 item 2: caps, not eviction. Each cap answers its 403 `limit_reached` or 503 `capacity_exceeded` and
// deletes nothing (decisions SH*); the numbers are small here so the tests stay quick.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManualScheduler } from "../../src/mock/store/scheduler.js";
import { call, freshKey, startStateful, STEP_MS, type TestGateway } from "./helpers.js";

const analysis = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Q4 call" };
const board = (name: string) => ({ name, widgets: [] });

describe("remembered workspaces", () => {
  const keys = Array.from({ length: 5 }, () => freshKey("pro"));
  let g: TestGateway & { scheduler: ManualScheduler };
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
  let g: TestGateway & { scheduler: ManualScheduler };
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
  let g: TestGateway & { scheduler: ManualScheduler };
  beforeAll(async () => (g = await startStateful({ extraKeys: [key], limits: { lifecycleTimers: 3 } })));
  afterAll(() => g.close());

  it("a create beyond --max-lifecycle-timers answers 503 capacity_exceeded until the lifecycles finish", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call(g.url, "POST", "/v1/analyses", { key: key.key, body: analysis }));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body.error).toBe("capacity_exceeded");
    for (let i = 0; i < 50; i++) g.scheduler.advance(STEP_MS);
    expect((await call(g.url, "POST", "/v1/analyses", { key: key.key, body: analysis })).status).toBe(202);
  });
});
