// The controls of issue 20 (decisions MC1–MC6), over real HTTP: the simulated clock (/__mock/clock), fault rules
// (/__mock/faults), reset ending open streams, Prefer: code=429 agreeing with its headers, the exposed headers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exposedHeaders } from "../../../../src/mock/core/contract/cors-head.js";
import { call, contract, getJson, policy, rateHeaders, readSse, startGateway, wsSession, type TestGateway } from "../../../helpers/mock.js";

const STEP = 1000;
const CREATE = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio", title: "Q4 review" };

const control = (g: TestGateway, path: string, method = "GET", body?: unknown) =>
  getJson(`${g.url}/__mock/${path}`, { method, headers: body === undefined ? {} : { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

let g: TestGateway;
beforeAll(async () => {
  // Real timers beneath the simulated clock, as with npm start; the tests pause it, so nothing moves by itself.
  g = await startGateway({ stepMs: STEP });
});
afterAll(() => g.close());
afterEach(async () => {
  await control(g, "reset", "POST");
});

describe("the simulated clock (/__mock/clock)", () => {
  it("paused, holds a processing analysis where it is; advanced, moves it step by step; resumed, runs on", async () => {
    expect((await control(g, "clock", "POST", { action: "pause" })).body).toMatchObject({ paused: true });
    const { body: created } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    expect(created.status).toBe("queued");
    const clock = await control(g, "clock");
    expect(clock.body).toMatchObject({ paused: true, pending: expect.any(Number) });
    expect(clock.body.pending).toBeGreaterThan(0);
    const get = async () => (await call(g.url, "GET", `/v1/analyses/${created.id}`)).body;

    await new Promise((r) => setTimeout(r, STEP / 2)); // real time passes; simulated time does not
    expect((await get()).status).toBe("queued");

    const stepped = await control(g, "clock", "POST", { action: "advance", ms: STEP });
    expect(Date.parse(stepped.body.now) - Date.parse(clock.body.now)).toBe(STEP);
    const processing = await get();
    expect(processing.status).toBe("processing");
    await control(g, "clock", "POST", { action: "advance", ms: STEP * 0.5 });
    const mid = await get();
    expect(mid.status).toBe("processing");
    expect(mid.progress).toBeGreaterThan(processing.progress);
    expect(mid.progress).toBeLessThan(100);
    expect((await get()).progress).toBe(mid.progress); // held: a screenshot sees the same bar
    // Timestamps follow the simulated clock.
    expect(Date.parse(mid.updated_at)).toBeLessThanOrEqual(Date.parse((await control(g, "clock")).body.now));

    await control(g, "clock", "POST", { action: "advance", ms: STEP });
    expect((await get()).status).toBe("completed");

    const resumed = await control(g, "clock", "POST", { action: "resume" });
    expect(resumed.body.paused).toBe(false);
  });

  it("expiries run on it: a pending approval expires after its 72 hours of simulated time", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    const { body: run } = await call(g.url, "POST", "/v1/runs", { body: { agent_id: "agt_01HZXA3C5E7G9J1K3M5N7P9Q2R" } });
    await control(g, "clock", "POST", { action: "advance", ms: STEP * 2 });
    const waiting = (await call(g.url, "GET", `/v1/runs/${run.id}`)).body;
    expect(waiting.status).toBe("awaiting_approval");
    const approval = () => call(g.url, "GET", `/v1/approvals/${waiting.approval_id}`).then((r) => r.body);
    await control(g, "clock", "POST", { action: "advance", ms: 72 * 3_600_000 - 1 });
    expect((await approval()).status).toBe("pending");
    await control(g, "clock", "POST", { action: "advance", ms: 1 });
    expect((await approval()).status).toBe("expired");
  });

  it("rate-limit windows run on the same clock (issue 43): a simulated hour starts a new minute, and a new window", async () => {
    const before = await call(g.url, "GET", "/v1/analyses", { key: "pk_test_demo_free" });
    await call(g.url, "GET", "/v1/analyses", { key: "pk_test_demo_free" });
    await control(g, "clock", "POST", { action: "pause" });
    await control(g, "clock", "POST", { action: "advance", ms: 3_600_000 });
    const after = await call(g.url, "GET", "/v1/analyses", { key: "pk_test_demo_free" });
    expect(rateHeaders(after.headers).reset).toBe(rateHeaders(before.headers).reset + 3600);
    expect(rateHeaders(after.headers).remaining).toBe(rateHeaders(after.headers).limit - 1);
  });

  it("a resumed clock moves a new analysis by itself", async () => {
    const { body: created } = await call(g.url, "POST", "/v1/analyses", { body: CREATE, headers: { Prefer: "scenario=fail" } });
    // The stream ends on its own once the analysis has failed: the clock runs.
    const res = await fetch(`${g.url}/v1/analysis/${created.id}/stream?token=pk_test_demo_pro`);
    const events = await readSse(res);
    expect(events.at(-1)!.event).toBe("error");
  });

  it("refuses a body it cannot follow, naming the field (400)", async () => {
    for (const [body, text] of [
      [{ action: "rewind" }, "action: one of pause, resume, advance"],
      [{ action: "advance" }, "ms: \"advance\" takes a whole number"],
      [{ action: "advance", ms: -5 }, "ms: \"advance\" takes a whole number"],
      [{ action: "pause", ms: 5 }, "ms: only \"advance\" takes ms"],
      [{ action: "pause", speed: 2 }, "speed: not a field"],
    ] as const) {
      const r = await control(g, "clock", "POST", body);
      expect([r.status, r.body.detail]).toEqual([400, expect.stringContaining(text)]);
    }
    const r = await fetch(`${g.url}/__mock/clock`, { method: "POST", body: "{nope" });
    expect(r.status).toBe(400);
    expect((await fetch(`${g.url}/__mock/clock`, { method: "DELETE" })).headers.get("allow")).toBe("GET, POST");
  });

  it("reset brings the clock back to real time, running", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    await control(g, "clock", "POST", { action: "advance", ms: 3_600_000 });
    await control(g, "reset", "POST");
    expect((await control(g, "clock")).body).toMatchObject({ paused: false, offset_ms: 0 });
  });
});

describe("fault rules (/__mock/faults)", () => {
  it("the next 3 createAnalysis answer 503, then it creates again; GET lists the rule with its use", async () => {
    const set = await control(g, "faults", "POST", { operationId: "createAnalysis", status: 503, times: 3 });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({ id: expect.stringMatching(/^flt_/), operationId: "createAnalysis", status: 503, times: 3, used: 0 });
    const first = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    expect([first.status, first.headers.get("retry-after"), first.headers.get("x-mock-notice")]).toEqual([503, "5", expect.stringContaining("fault rule")]);
    expect((await control(g, "faults")).body.rules).toMatchObject([{ id: set.body.id, used: 1 }]);
    expect((await call(g.url, "GET", "/v1/analyses")).status).toBe(200); // other operations as ever
    for (let i = 0; i < 2; i++) expect((await call(g.url, "POST", "/v1/analyses", { body: CREATE })).status).toBe(503);
    expect((await call(g.url, "POST", "/v1/analyses", { body: CREATE })).status).toBe(202);
    expect((await control(g, "faults")).body.rules).toEqual([]);
  });

  it("comes after credentials and validation: an invalid request answers as ever and spends nothing", async () => {
    await control(g, "faults", "POST", { operationId: "createAnalysis", status: 503, times: 1 });
    expect((await call(g.url, "POST", "/v1/analyses", { body: { media_type: "sound" } })).status).toBe(422);
    expect((await getJson(`${g.url}/v1/analyses`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(CREATE) })).status).toBe(401);
    expect((await control(g, "faults")).body.rules).toMatchObject([{ used: 0 }]);
  });

  it("a documented status answers the contract's example, as Prefer: code= would", async () => {
    await control(g, "faults", "POST", { operationId: "getAnalysis", status: 500 });
    const r = await call(g.url, "GET", "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0");
    const prefer = await call(g.url, "GET", "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0", { headers: { Prefer: "code=500" }, key: "pk_test_demo_business" });
    expect([r.status, r.body]).toEqual([500, prefer.body]);
  });

  it("this analysis fails: a resource rule gives its next processing step the lifecycle's fail outcome", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    const { body: a } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    const { body: b } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    await control(g, "clock", "POST", { action: "advance", ms: STEP });
    expect((await control(g, "faults", "POST", { resource: a.id, scenario: "fail" })).status).toBe(201);
    await control(g, "clock", "POST", { action: "advance", ms: STEP });
    const [fa, fb] = [(await call(g.url, "GET", `/v1/analyses/${a.id}`)).body, (await call(g.url, "GET", `/v1/analyses/${b.id}`)).body];
    expect([fa.status, fb.status]).toEqual(["failed", "completed"]);
    expect(fa.error).toMatchObject({ code: expect.any(String) });
  });

  it("the next create fails: a scenario rule on a create operation", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    await control(g, "faults", "POST", { operationId: "createAnalysis", scenario: "fail", times: 1 });
    const { body: a } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    const { body: b } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    await control(g, "clock", "POST", { action: "advance", ms: STEP * 3 });
    expect((await call(g.url, "GET", `/v1/analyses/${a.id}`)).body.status).toBe("failed");
    expect((await call(g.url, "GET", `/v1/analyses/${b.id}`)).body.status).toBe("completed");
  });

  it("the stream breaks after 2 events (SSE and WebSocket), and resumes after Last-Event-ID", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    const { body: a } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    await control(g, "clock", "POST", { action: "advance", ms: STEP * 3 });
    const res = await fetch(`${g.url}/v1/analysis/${a.id}/stream?token=pk_test_demo_pro`);
    const full = await readSse(res);
    expect(full.at(-1)!.event).toBe("completed");
    // The broken one (the rule took the first request) delivered its first two events, and no closing one.
    await control(g, "faults", "POST", { operationId: "streamAnalysisEvents", resource: a.id, break_after: 2, times: 1 });
    const got: string[] = [];
    await collect(await fetch(`${g.url}/v1/analysis/${a.id}/stream?token=pk_test_demo_pro`), got);
    expect(got.join("").match(/^id: .+$/gm)).toEqual(full.slice(0, 2).map((e) => `id: ${e.id}`));
    const resumed = await readSse(await fetch(`${g.url}/v1/analysis/${a.id}/stream?token=pk_test_demo_pro`, { headers: { "Last-Event-ID": full[1]!.id! } }));
    expect(resumed.map((e) => e.id)).toEqual(full.slice(2).map((e) => e.id));

    await control(g, "faults", "POST", { operationId: "connectAnalysisEvents", break_after: 2 });
    const ws = await wsSession(`${g.url.replace("http", "ws")}/ws/analyses/${a.id}?token=pk_test_demo_pro`);
    expect([ws.messages.length, ws.code]).toEqual([2, 1006]);
  });

  it("the stateless mock's scripted stream breaks too", async () => {
    const st = await startGateway({ stateless: true });
    try {
      await control(st, "faults", "POST", { operationId: "streamAnalysisEvents", break_after: 3 });
      const got: string[] = [];
      await collect(await fetch(`${st.url}/v1/analysis/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/stream?token=pk_test_demo_pro`), got);
      expect(got.join("").match(/^id: /gm)).toHaveLength(3);
    } finally {
      await st.close();
    }
  });

  it("refuses a rule it cannot keep, naming the field (400); DELETE clears the rules; reset too", async () => {
    for (const [rule, text] of [
      [{ operationId: "createAnalysis", status: 418 }, "status: createAnalysis documents 202, 400"],
      [{ operationId: "createAnalysys", status: 503 }, 'operationId: the contract has no operation "createAnalysys"'],
      [{ operationId: "createAnalysis" }, "needs exactly one effect"],
      [{ status: 503 }, "needs operationId, resource or both"],
      [{ operationId: "createAnalysis", status: 503, scenario: "fail" }, "needs exactly one effect"],
      [{ resource: "xyz_1", scenario: "fail" }, 'resource: no collection of the contract has ids like "xyz_1"'],
      [{ resource: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", scenario: "explode" }, 'scenario: a Analysis takes fail, not "explode"'],
      [{ operationId: "getAnalysis", break_after: 1 }, "break_after: getAnalysis is not an event stream"],
      [{ operationId: "connectAnalysisEvents", status: 500 }, "status: connectAnalysisEvents is a WebSocket upgrade"],
      [{ operationId: "createAnalysis", status: 503, when: "later" }, 'has no field "when"'],
    ] as const) {
      const r = await control(g, "faults", "POST", rule);
      expect([r.status, r.body.detail]).toEqual([400, expect.stringContaining(text)]);
    }
    await control(g, "faults", "POST", { operationId: "createAnalysis", status: 503 });
    expect((await control(g, "faults", "DELETE")).status).toBe(204);
    expect((await control(g, "faults")).body.rules).toEqual([]);
    await control(g, "faults", "POST", { operationId: "createAnalysis", status: 503 });
    await control(g, "reset", "POST");
    expect((await call(g.url, "POST", "/v1/analyses", { body: CREATE })).status).toBe(202);
  });

  it("only clients on this machine, and no other site's web page (403)", async () => {
    const r = await fetch(`${g.url}/__mock/faults`, { method: "POST", headers: { Origin: "https://evil.example", "Content-Type": "application/json" }, body: "{}" });
    expect(r.status).toBe(403);
  });
});

/** Reads a response until it ends ("end") or its connection is cut ("cut"), keeping the text in `into`. */
async function collect(res: Response, into: string[]): Promise<"end" | "cut"> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) into.push(decoder.decode(chunk, { stream: true }));
    return "end";
  } catch {
    return "cut";
  }
}

describe("POST /__mock/reset ends open streams", () => {
  it("an SSE stream following a processing analysis, and the WebSocket, end (1012)", async () => {
    await control(g, "clock", "POST", { action: "pause" });
    const { body: a } = await call(g.url, "POST", "/v1/analyses", { body: CREATE });
    const res = await fetch(`${g.url}/v1/analysis/${a.id}/stream?token=pk_test_demo_pro`);
    const got: string[] = [];
    const ended = collect(res, got);
    const ws = wsSession(`${g.url.replace("http", "ws")}/ws/analyses/${a.id}?token=pk_test_demo_pro`, {
      onOpen: () => void control(g, "reset", "POST"),
    });
    expect((await ws).code).toBe(1012);
    expect(await ended).toBe("end");
    expect(got.join("")).toContain("event: status");
  });
});

describe("Prefer: code=429 agrees with its headers (x-rate-limit-policy)", () => {
  it("the minute limit: body limit and retry_after are the X-RateLimit-Limit and Retry-After sent, remaining 0", async () => {
    for (const key of ["pk_test_demo_business", "pk_test_demo_pro", "pk_test_demo_limited"]) {
      const r = await call(g.url, "GET", "/v1/analyses", { key, headers: { Prefer: "code=429" } });
      const h = rateHeaders(r.headers);
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ error: policy.errors.minute.error, window: policy.errors.minute.window, limit: h.limit, retry_after: Number(r.headers.get("retry-after")) });
      expect(h.remaining).toBe(0);
      expect(r.body.retry_after).toBe(h.reset - Math.floor(g.clock.now() / 1000));
    }
    expect((await call(g.url, "GET", "/v1/analyses", { key: "pk_test_demo_business", headers: { Prefer: "code=429" } })).body.limit).toBe(300);
  });

  it("the daily limit (example=daily_limit_exceeded): the daily headers, retry_after until the UTC day ends", async () => {
    const r = await call(g.url, "GET", "/v1/analyses", { key: "pk_test_demo_starter", headers: { Prefer: "code=429, example=daily_limit_exceeded" } });
    const h = rateHeaders(r.headers);
    expect(r.body).toMatchObject({ error: policy.errors.daily.error, limit: h.dailyLimit, retry_after: Number(r.headers.get("retry-after")) });
    expect(h.dailyRemaining).toBe(0);
    expect(r.body.retry_after).toBe(Math.ceil((86_400_000 - (g.clock.now() % 86_400_000)) / 1000));
  });
});

describe("Access-Control-Expose-Headers", () => {
  it("lists every response header the contract declares, the rate-limit headers and X-Mock-Notice", async () => {
    const r = await fetch(`${g.url}/v1/analyses`);
    const exposed = r.headers.get("access-control-expose-headers")!.split(", ");
    for (const h of ["WWW-Authenticate", "Retry-After", "X-Mock-Notice", "Idempotent-Replayed", ...Object.values(policy.headers)]) expect(exposed).toContain(h);
    const declared = new Set<string>();
    for (const route of contract.router.routes) for (const resp of Object.values<any>(route.op.responses)) for (const n of Object.keys(contract.deref(resp)?.headers ?? {})) declared.add(n);
    for (const n of declared) if (!/^(content-type|cache-control)$/i.test(n)) expect(exposed, n).toContain(n);
    expect(exposed).toEqual(exposedHeaders(contract));
  });

  it("a header a later contract declares is exposed without a code change", () => {
    const route = contract.router.routes[0]!;
    const before = route.op.responses[String(route.successCode)];
    route.op.responses[String(route.successCode)] = { ...contract.deref(before), headers: { ...contract.deref(before)?.headers, "X-Brand-New": { schema: { type: "string" } } } };
    try {
      expect(exposedHeaders(contract)).toContain("X-Brand-New");
    } finally {
      route.op.responses[String(route.successCode)] = before;
    }
  });
});
