// createSimulation in this process: the typed client over `sim.fetch` with no port opened, the event stream
// followed live while the clock moves, the typed controls, fixtures, and two simulations sharing nothing.
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, unwrap } from "../../../../src/client/index.js";
import { streamAnalysisEvents } from "../../../../src/client/streaming.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { MockControlError } from "../../../../src/mock/core/controls/controls-api.js";
import { FixturesError } from "../../../../src/mock/core/controls/fixtures.js";
import { createSimulation, type Simulation } from "../../../../src/mock/homes/node/simulation.js";

const MEDIA = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" } as const;
const open: Simulation[] = [];
function sim(...args: Parameters<typeof createSimulation>): Simulation {
  const s = createSimulation(...args);
  open.push(s);
  return s;
}
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe("createSimulation", () => {
  it("answers the typed client with no port opened: create, the clock, completed transcript, a fault rule, reset", async () => {
    const listen = vi.spyOn(net.Server.prototype, "listen");
    const s = sim();
    const api = createClient({ baseUrl: s.baseUrl, apiKey: s.keys.pro, fetch: s.fetch, retry: false });
    const created = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
    expect(created.status).toBe("queued");
    // Paused by default: nothing moves until the clock is advanced.
    expect((await unwrap(api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: created.id } } }))).status).toBe("queued");
    await s.clock.advance(120_000);
    expect((await unwrap(api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: created.id } } }))).status).toBe("completed");
    const transcript = await unwrap(api.GET("/v1/analyses/{analysis_id}/transcript", { params: { path: { analysis_id: created.id } } }));
    expect(transcript.segments.length).toBeGreaterThan(0);

    await s.faults.add({ operationId: "listAnalyses", status: 503, times: 1 });
    const failed = await api.GET("/v1/analyses");
    expect(failed.response.status).toBe(503);
    expect(await s.faults.list()).toEqual([]); // used up
    await s.faults.add({ operationId: "listAnalyses", status: 503 });

    await s.reset();
    expect((await api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: created.id } } })).response.status).toBe(404);
    expect(await s.faults.list()).toEqual([]);
    expect((await s.clock.get()).paused).toBe(true); // created paused, paused again after reset
    expect(listen).not.toHaveBeenCalled();
  });

  it("streams events as they happen: the client follows the stream while the clock advances", async () => {
    const s = sim();
    const api = createClient({ baseUrl: s.baseUrl, apiKey: s.keys.pro, fetch: s.fetch, retry: false });
    const { id } = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of streamAnalysisEvents(api, id)) {
        seen.push(e.event);
        if (seen.length === 1) void s.clock.advance(120_000);
      }
    })();
    await done;
    expect(seen[0]).toBe("status");
    expect(seen.at(-1)).toBe("completed");
    expect(seen).toContain("transcript.segment");
  });

  it("keeps each simulation to itself", async () => {
    const a = sim();
    const b = sim();
    const post = (s: Simulation) => s.fetch(`${s.baseUrl}/v1/analyses`, { method: "POST", headers: { "X-API-Key": s.keys.pro!, "Content-Type": "application/json" }, body: JSON.stringify(MEDIA) });
    const { id } = (await (await post(a)).json()) as { id: string };
    const get = (s: Simulation) => s.fetch(`${s.baseUrl}/v1/analyses/${id}`, { headers: { "X-API-Key": s.keys.pro! } });
    expect((await get(a)).status).toBe(200);
    expect((await get(b)).status).toBe(404);
    await a.clock.advance(5000);
    expect((await a.clock.get()).now).not.toBe((await b.clock.get()).now);
    // Each has its own rate-limit buckets.
    expect((await get(b)).headers.get("X-RateLimit-Remaining")).not.toBe((await get(a)).headers.get("X-RateLimit-Remaining"));
  });

  it("mints the same ids from one seed: records, their content, keys and webhooks; reset starts over", async () => {
    const story = async (s: Simulation) => {
      const api = createClient({ baseUrl: s.baseUrl, apiKey: s.keys.pro, fetch: s.fetch, retry: false });
      const analysis = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
      await s.clock.advance(120_000);
      const transcript = await unwrap(api.GET("/v1/analyses/{analysis_id}/transcript", { params: { path: { analysis_id: analysis.id } } }));
      const key = await unwrap(api.POST("/v1/keys", { body: { name: "ci", environment: "test" } }));
      const hook = await unwrap(api.POST("/v1/webhooks", { body: { url: "https://hooks.example.com/avt", event_types: ["analysis.completed"] } }));
      return { analysis: analysis.id, segments: transcript.segments.map((g) => g.id), key: [key.id, key.secret], hook: [hook.id, hook.secret] };
    };
    const a = sim({ seed: 42 });
    const first = await story(a);
    expect(first.analysis).toMatch(/^anl_/);
    expect(await story(sim({ seed: 42 }))).toEqual(first);
    const other = await story(sim({ seed: 43 }));
    expect(other.analysis).not.toBe(first.analysis);
    expect(other.key[1]).not.toBe(first.key[1]);
    expect((await story(sim())).analysis).not.toBe((await story(sim())).analysis); // without a seed, random
    await a.reset();
    expect(await story(a)).toEqual(first); // the sequence starts over
  });

  it("mints per workspace: one seed gives the same ids and secrets whatever other workspaces did first", async () => {
    const story = async (s: Simulation) => {
      const api = createClient({ baseUrl: s.baseUrl, apiKey: s.keys.pro, fetch: s.fetch, retry: false });
      const analysis = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
      const key = await unwrap(api.POST("/v1/keys", { body: { name: "ci", environment: "test" } }));
      const hook = await unwrap(api.POST("/v1/webhooks", { body: { url: "https://hooks.example.com/avt", event_types: ["analysis.completed"] } }));
      return { analysis: analysis.id, key: [key.id, key.secret], hook: [hook.id, hook.secret] };
    };
    const alone = await story(sim({ seed: 7 }));
    const busy = sim({ seed: 7 });
    // Another workspace first: a read-only GET (its workspace seeded from the examples), then writes of its own.
    const other = createClient({ baseUrl: busy.baseUrl, apiKey: busy.keys.free, fetch: busy.fetch, retry: false });
    await unwrap(other.GET("/v1/analyses"));
    await unwrap(other.POST("/v1/analyses", { body: MEDIA }));
    await unwrap(other.POST("/v1/webhooks", { body: { url: "https://hooks.example.com/other", event_types: ["analysis.completed"] } }));
    expect(await story(busy)).toEqual(alone);
  });

  it("registers loopback webhooks only when allowLoopbackWebhooks says so", async () => {
    const body = JSON.stringify({ url: "http://127.0.0.1:9/hook", event_types: ["analysis.completed"] });
    const register = (s: Simulation) => s.fetch(`${s.baseUrl}/v1/webhooks`, { method: "POST", headers: { "X-API-Key": s.keys.pro!, "Content-Type": "application/json" }, body });
    expect((await register(sim())).status).toBe(422);
    expect((await register(sim({ allowLoopbackWebhooks: true }))).status).toBe(201);
  });

  it("loads fixtures, as a file or a document; a bad one names where", async () => {
    const file = path.join(REPO_ROOT, "docs/mock-fixtures.example.yaml");
    const s = sim({ fixtures: file });
    const headers = { "X-API-Key": "pk_test_dashboard_demo" };
    expect((await s.fetch(`${s.baseUrl}/v1/analyses/anl_01DashCall00000000000001`, { headers })).status).toBe(200);
    await s.load({ keys: [{ key: "pk_test_other_demo", workspace_id: "ws_Other000001", plan: "pro" }], workspaces: { ws_Other000001: {} } });
    expect((await s.fetch(`${s.baseUrl}/v1/analyses/anl_01DashCall00000000000001`, { headers })).status).toBe(401);
    const other = await s.fetch(`${s.baseUrl}/v1/analyses`, { headers: { "X-API-Key": "pk_test_other_demo" } });
    expect(((await other.json()) as { data: unknown[] }).data).toEqual([]);
    expect(() => sim({ fixtures: { workspaces: { ws_Other000001: { Analysis: [{ id: 3 }] } } } })).toThrow(FixturesError);
  });

  it("controls refuse what the mock refuses, with its detail", async () => {
    const s = sim();
    await expect(s.faults.add({ operationId: "noSuchOperation", status: 503 })).rejects.toThrow(MockControlError);
    await expect(s.clock.advance(-1)).rejects.toThrow(/advance/);
  });

  it("answers a 204 without a body, and an aborted request rejects", async () => {
    const s = sim();
    const reset = await s.fetch(`${s.baseUrl}/__mock/reset`, { method: "POST" });
    expect(reset.status).toBe(204);
    expect(reset.body).toBeNull();
    const ac = new AbortController();
    ac.abort(new Error("gone"));
    await expect(s.fetch(`${s.baseUrl}/v1/analyses`, { signal: ac.signal })).rejects.toThrow("gone");
  });
});
