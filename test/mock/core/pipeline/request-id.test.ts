// Stage `requestId` (issue 49, decisions RQ1-RQ3): every answer of the mock carries X-Request-Id, echoed from the
// request when it fits the header's schema, else fresh; the same in both homes (a port, createSimulation's fetch)
// and on every kind of answer: a stored resource, a refusal, a preflight, an event stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../../../src/mock/homes/node/gateway.js";
import { createSimulation, type Simulation } from "../../../../src/mock/homes/node/simulation.js";
import { contract } from "../../../helpers/mock.js";

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;
const KEY = { "X-API-Key": "pk_test_demo_pro" };
const FRESH = /^req_[0-9a-f]{12}[0-9a-z]{6,}$/;

let gateway: Gateway;
let sim: Simulation;
const homes: Array<[string, () => { base: string; fetch: Fetch }]> = [];

beforeAll(async () => {
  gateway = await createGateway({ contract, log: null });
  const base = await gateway.listen(0, "127.0.0.1");
  sim = createSimulation();
  homes.push(["node gateway", () => ({ base, fetch: (i, init) => fetch(i, init) })]);
  homes.push(["in-process fetch", () => ({ base: sim.baseUrl, fetch: sim.fetch })]);
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

describe.each(["node gateway", "in-process fetch"])("X-Request-Id from the %s", (name) => {
  const home = () => homes.find(([n]) => n === name)![1]();

  it("a fresh id on every answer without one, a new one each time", async () => {
    const { base, fetch } = home();
    const ids: string[] = [];
    for (const [path, init] of [
      ["/v1/analyses?limit=1", { headers: KEY }],
      ["/v1/analyses", {}],
      ["/v1/nowhere", { headers: KEY }],
      ["/v1/analyses", { method: "OPTIONS", headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" } }],
      ["/health", {}],
    ] as const) {
      const res = await fetch(`${base}${path}`, init as RequestInit);
      await res.arrayBuffer();
      const id = res.headers.get("x-request-id");
      expect(id, `${path} ${res.status}`).toMatch(FRESH);
      ids.push(id!);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes a bounded, printable id on success and on refusal", async () => {
    const { base, fetch } = home();
    for (const headers of [{ ...KEY, "X-Request-Id": "trace-7/abc:1" }, { "X-Request-Id": "trace-7/abc:1" }]) {
      const res = await fetch(`${base}/v1/analyses?limit=1`, { headers });
      await res.arrayBuffer();
      expect(res.headers.get("x-request-id")).toBe("trace-7/abc:1");
    }
  });

  it("replaces an id too long or with a space by a fresh one", async () => {
    const { base, fetch } = home();
    for (const sent of ["x".repeat(129), "two words"]) {
      const res = await fetch(`${base}/v1/analyses?limit=1`, { headers: { ...KEY, "X-Request-Id": sent } });
      await res.arrayBuffer();
      expect(res.headers.get("x-request-id")).toMatch(FRESH);
    }
  });

  it("an event stream carries it, and CORS exposes it to a page's scripts", async () => {
    const { base, fetch } = home();
    const created = await fetch(`${base}/v1/analyses`, { method: "POST", headers: { ...KEY, "Content-Type": "application/json" }, body: JSON.stringify({ media_url: "https://media.example.com/a.mp3", media_type: "audio" }) });
    const { id } = (await created.json()) as { id: string };
    const ctl = new AbortController();
    const res = await fetch(`${base}/v1/analysis/${id}/stream`, { headers: { ...KEY, "X-Request-Id": "stream-1" }, signal: ctl.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-request-id")).toBe("stream-1");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    ctl.abort();
  });
});
