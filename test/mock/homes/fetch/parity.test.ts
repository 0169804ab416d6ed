// Parity: one scenario (create, list, filter, the lifecycle to completion on the clock, its event stream, an
// idempotent replay, 401, 422, 429, a fault rule, reset) run against the gateway on a port and against
// createSimulation's in-process fetch, through the same typed controls (mockControls). Each answer is written down
// as status, headers and body, with what differs by nature generalised (ids, times, the base URL, the server's
// hop-by-hop headers); the two transcripts must be equal, step by step. On one seed, the records both create are
// equal with their ids and secrets, whatever order each touched its workspaces in. The browser bundle, as built
// (its compact contract: decision MC11), runs the same scenario.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../../../src/mock/homes/node/gateway.js";
import { mockControls, type MockControls } from "../../../../src/mock/core/controls/controls-api.js";
import { createSimulation, type Simulation } from "../../../../src/mock/homes/node/simulation.js";
import { contract, readSse } from "../../../helpers/mock.js";
import { builtBrowserSimulation } from "../../../helpers/browser-build.js";

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;
interface Target {
  base: string;
  fetch: Fetch;
  controls: MockControls;
}

/** What node:http adds by itself, and what a Response computes: not the pipeline's answer. */
const TRANSPORT = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

function generalise(text: string, base: string): string {
  return text
    .split(base)
    .join("{base}")
    .replace(/\b([a-z]{2,6})_[0-9A-Za-z]{12,}\b/g, "$1_{id}")
    // Seconds to wait, counted on the wall clock by the rate limiter.
    .replace(/"retry_after":\d+/g, '"retry_after":"{seconds}"')
    // A cursor encodes the time of its record.
    .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"{cursor}"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "{time}");
}

async function record(t: Target, res: Response): Promise<unknown> {
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (TRANSPORT.has(k)) return;
    // Wall-clock values (the window's end, seconds to wait) and the length of a body that holds one: present, and a number.
    if (k === "x-ratelimit-reset" || k === "retry-after" || k === "content-length") headers[k] = /^\d+$/.test(v) ? "{n}" : v;
    else headers[k] = generalise(v, t.base);
  });
  const type = res.headers.get("content-type") ?? "";
  const body = type.startsWith("text/event-stream")
    ? (await readSse(res)).map((e) => `${e.event ?? "message"} ${generalise(e.data, t.base)}`)
    : generalise(await res.text(), t.base);
  return { status: res.status, headers, body };
}

const PRO = { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" };
// Seeded: derived content follows the seed (decision RM11), and the ids, which seed it otherwise, differ between runs.
const MEDIA = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio", metadata: { seed: "parity" } };

/** The scenario: each step's answer, recorded; the ids it needs are read from earlier answers. */
async function scenario(t: Target): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  const step = async (name: string, path: string, init: RequestInit = {}) => {
    const res = await t.fetch(`${t.base}${path}`, init);
    const clone = res.clone();
    out.push([name, await record(t, res)]);
    return clone;
  };
  await t.controls.clock.pause();
  await step("401 without credentials", "/v1/analyses");
  const create = { method: "POST", headers: { ...PRO, "Idempotency-Key": "parity-1" }, body: JSON.stringify(MEDIA) };
  const created = (await (await step("create", "/v1/analyses", create)).json()) as { id: string };
  await step("idempotent replay", "/v1/analyses", create);
  await step("422 on a bad body", "/v1/analyses", { method: "POST", headers: PRO, body: JSON.stringify({ media_type: "audio" }) });
  // An `x-status` rule answers 400 with the rule's description (rule-status.ts): prose the browser's compact contract keeps.
  await step("400 of an x-status rule", "/v1/analyses", { method: "POST", headers: PRO, body: JSON.stringify({ ...MEDIA, features: ["signals"] }) });
  await step("list", "/v1/analyses?limit=3", { headers: PRO });
  await step("filter", "/v1/analyses?status=queued&limit=5", { headers: PRO });
  await step("queued", `/v1/analyses/${created.id}`, { headers: PRO });
  await t.controls.clock.advance(120_000);
  await step("completed after the clock", `/v1/analyses/${created.id}`, { headers: PRO });
  await step("event stream", `/v1/analysis/${created.id}/stream`, { headers: PRO });
  await step("transcript", `/v1/analyses/${created.id}/transcript`, { headers: PRO });
  const rule = await t.controls.faults.add({ operationId: "listAnalyses", status: 503, times: 1 });
  out.push(["fault rule", { ...rule, id: typeof rule.id }]);
  await step("503 of the rule", "/v1/analyses?limit=1", { headers: PRO });
  await step("the rule used up", "/v1/analyses?limit=1", { headers: PRO });
  for (let i = 0; i < 10; i++) await t.fetch(`${t.base}/v1/analyses?limit=1`, { headers: { "X-API-Key": "pk_test_demo_limited" } });
  await step("429 past the key's limit", "/v1/analyses?limit=1", { headers: { "X-API-Key": "pk_test_demo_limited" } });
  await t.controls.reset();
  await step("404 after reset", `/v1/analyses/${created.id}`, { headers: PRO });
  out.push(["faults after reset", await t.controls.faults.list()]);
  return out;
}

/**
 * Created records on one seed, ids and secrets kept (only times and the base URL generalised): an analysis and its
 * content, a key, a webhook; the server's workspaces touched in another order than the simulation's.
 */
async function created(t: Target, otherFirst: boolean): Promise<string[]> {
  const post = async (path: string, body: unknown, key = PRO) => {
    const res = await t.fetch(`${t.base}${path}`, { method: "POST", headers: key, body: JSON.stringify(body) });
    return res.text();
  };
  const FREE = { ...PRO, "X-API-Key": "pk_test_demo_free" };
  if (otherFirst) {
    await t.fetch(`${t.base}/v1/analyses`, { headers: FREE });
    await post("/v1/analyses", MEDIA, FREE);
  }
  await t.controls.clock.pause();
  const out = [await post("/v1/analyses", MEDIA), await post("/v1/keys", { name: "ci", environment: "test" }), await post("/v1/webhooks", { url: "https://hooks.example.com/avt", event_types: ["analysis.completed"] })];
  const { id } = JSON.parse(out[0]!) as { id: string };
  await t.controls.clock.advance(120_000);
  out.push(await (await t.fetch(`${t.base}/v1/analyses/${id}/transcript`, { headers: PRO })).text());
  return out.map((text) => text.split(t.base).join("{base}").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "{time}"));
}

let gateway: Gateway;
let sim: Simulation;
let server: Array<[string, unknown]>;
beforeAll(async () => {
  gateway = await createGateway({ contract, log: null });
  const base = await gateway.listen(0, "127.0.0.1");
  server = await scenario({ base, fetch: (i, init) => fetch(i, init), controls: mockControls(base) });
  sim = createSimulation();
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

describe("parity: the gateway and createSimulation's fetch", () => {
  it("answer the scenario alike, step by step", async () => {
    const inProcess = await scenario({ base: sim.baseUrl, fetch: sim.fetch, controls: mockControls(sim.baseUrl, sim.fetch) });
    expect(server.map(([name]) => name)).toEqual(inProcess.map(([name]) => name));
    for (let i = 0; i < server.length; i++) expect(inProcess[i], server[i]![0]).toEqual(server[i]);
    // The scenario says something: what each step answered.
    expect(server.map(([name, r]) => `${name} ${(r as { status?: number }).status ?? ""}`.trim())).toEqual([
      "401 without credentials 401",
      "create 202",
      "idempotent replay 202",
      "422 on a bad body 422",
      "400 of an x-status rule 400",
      "list 200",
      "filter 200",
      "queued 200",
      "completed after the clock 200",
      "event stream 200",
      "transcript 200",
      "fault rule 503",
      "503 of the rule 503",
      "the rule used up 200",
      "429 past the key's limit 429",
      "404 after reset 404",
      "faults after reset",
    ]);
    const answer = (name: string) => server.find(([n]) => n === name)![1] as { headers: Record<string, string>; body: unknown };
    expect(answer("idempotent replay").headers["idempotent-replayed"]).toBe("true");
    expect((answer("event stream").body as string[]).at(-1)).toMatch(/^completed /);
    expect(answer("completed after the clock").body).toContain('"status":"completed"');
    expect(answer("400 of an x-status rule").body).toContain("`signals` needs `use_case_id`");
  });

  it("the browser bundle as built (its compact contract, its chunks) answers the scenario alike", { timeout: 120_000 }, async () => {
    const built = await builtBrowserSimulation();
    const browser = built.createSimulation();
    try {
      const inBrowser = await scenario({ base: browser.baseUrl, fetch: browser.fetch, controls: mockControls(browser.baseUrl, browser.fetch) });
      for (let i = 0; i < server.length; i++) expect(inBrowser[i], server[i]![0]).toEqual(server[i]);
      expect(inBrowser).toHaveLength(server.length);
    } finally {
      await browser.close();
      await built.dispose();
    }
  });
});

describe("parity on one seed: avt-mock --seed and createSimulation({ seed })", () => {
  it("create the same records, ids and secrets included, whatever order the workspaces are used in", async () => {
    const seeded = await createGateway({ contract, log: null, seed: 11 });
    const s = createSimulation({ seed: 11 });
    try {
      const base = await seeded.listen(0, "127.0.0.1");
      const server = await created({ base, fetch: (i, init) => fetch(i, init), controls: mockControls(base) }, true);
      const inProcess = await created({ base: s.baseUrl, fetch: s.fetch, controls: mockControls(s.baseUrl, s.fetch) }, false);
      expect(server[0]).toMatch(/"id":"anl_[0-9A-Z]{26}"/);
      expect(server[1]).toMatch(/"secret":"pk_test_/);
      expect(inProcess).toEqual(server);
    } finally {
      await seeded.close();
      await s.close();
    }
  });
});
