// Issue 29 item 7: with --state a workspace leaves memory when more are in use than --max-workspaces (DB6), but
// never while a request or an open stream of it is in flight (decision DB12): the request's Idempotency-Key answer
// is kept (the same key replays, no second board) and an open event stream keeps receiving its events.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, freshKey, readSse, startStateful, STEP_MS } from "../../../helpers/mock.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function gateway() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mock-unload-")), "state.db");
  const [a, b] = [freshKey("business"), freshKey("business")];
  const g = await startStateful({ stateFile: file, extraKeys: [a, b], limits: { workspaces: 1 } });
  closers.push(() => g.close());
  return { g, a, b };
}

describe("a workspace with a request or a stream in flight stays in memory (--state, --max-workspaces 1)", () => {
  it("a keyed create whose body is still arriving keeps its answer when another workspace is used meanwhile", async () => {
    const { g, a, b } = await gateway();
    const body = JSON.stringify({ name: "Only once" });
    const { hostname, port } = new URL(g.url);
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request({ host: hostname, port, method: "POST", path: "/v1/boards", headers: { "X-API-Key": a.key, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), "Idempotency-Key": "slow-1" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.write(body.slice(0, 5));
      // The headers are in and the key is claimed; another workspace's request would make this one leave memory.
      setTimeout(async () => {
        expect((await call(g.url, "GET", "/v1/boards", { key: b.key })).status).toBe(200);
        req.end(body.slice(5));
      }, 200);
    });
    expect(await answer).toBe(201);
    await call(g.url, "GET", "/v1/boards", { key: b.key }); // and again, once it is answered
    const again = await call(g.url, "POST", "/v1/boards", { key: a.key, body: { name: "Only once" }, headers: { "Idempotency-Key": "slow-1" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const names = ((await call(g.url, "GET", "/v1/boards?limit=100", { key: a.key })).body.data as Array<{ name: string }>).map((x) => x.name);
    expect(names.filter((n) => n === "Only once")).toHaveLength(1);
  });

  it("an open event stream keeps receiving its analysis's events while another workspace is used", async () => {
    const { g, a, b } = await gateway();
    const body = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Streamed" };
    const id = (await call(g.url, "POST", "/v1/analyses", { key: a.key, body })).body.id as string;
    const res = await fetch(`${g.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": a.key } });
    expect(res.status).toBe(200);
    const events = readSse(res);
    expect((await call(g.url, "GET", "/v1/boards", { key: b.key })).status).toBe(200); // would unload a's workspace
    for (let i = 0; i < 10; i++) g.clock.advance(STEP_MS);
    const got = await Promise.race([events, new Promise<null>((r) => setTimeout(() => r(null), 3000))]);
    expect(got?.at(-1)?.event).toBe("completed");
  });
});

describe("holding a workspace (decision RM26)", () => {
  it("is kept for --state, where a workspace can leave memory; in memory alone nothing leaves, and a request holds nothing", async () => {
    const { g } = await gateway();
    const release = g.gateway.store.hold("ws_DemoPro00000");
    expect(typeof release).toBe("function");
    release!();
    const inMemory = await startStateful();
    closers.push(() => inMemory.close());
    expect(inMemory.gateway.store.hold("ws_DemoPro00000")).toBeNull();
    expect((await call(inMemory.url, "GET", "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0")).status).toBe(200);
  });
});
