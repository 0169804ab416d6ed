// Fault injection into the typed client over real sockets: a server on loopback (lib/fault-server.ts) drops
// connections, answers 500 several times, answers 429 with Retry-After, cuts a JSON body short, and stalls
// before or after its headers. The client must retry or fail as docs/typescript.md and docs/limits.md document (429 after Retry-After;
// 500/502/503/504, network errors and time-outs with backoff; 3 attempts within 60 s by default; each attempt
// timed out), within its time budget — measured on the client's injected clock, never by sleeping — and a retry
// never sends a different body than the first attempt. A non-retryable failure surfaces once, as a typed error
// that keeps the response.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, createClient, RateLimitError, TimeoutError, unwrap, ValidationError, type ClientOptions } from "../../src/client/index.js";
import { API_KEY, errorExamples, FakeClock } from "./helpers.js";
import { faultServer, type Fault, type FaultServer } from "../helpers/robustness/fault-server.js";

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(script: (n: number) => Fault, options: Partial<ClientOptions> = {}) {
  const server = await faultServer(script);
  servers.push(server);
  const clock = new FakeClock();
  const client = createClient({ baseUrl: server.url, apiKey: API_KEY, timers: clock, timeoutMs: 0, ...options } as ClientOptions);
  return { server, clock, client };
}

/**
 * Lets a call run to its end, moving the fake clock whenever the client waits on it. With `timeoutMs: 0` the only
 * timers are back-off waits, so time moves only while the client waits between attempts.
 */
async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; !done && i < 20_000; i++) {
    if (clock.pending.length) await clock.advance(clock.pending[0]!);
    else await new Promise((r) => setTimeout(r, 1)); // a request is in flight on the real socket
  }
  return p;
}

const settle = <T>(p: Promise<T>) => p.then((value) => ({ value, error: undefined }), (error: unknown) => ({ value: undefined, error }));
const example = (status: number) => errorExamples().find((e) => e.status === status)!.body;
const created = { kind: "status", status: 202, body: { id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", status: "queued" } } as const;
const body = { media_url: "https://media.example.com/naïve-😀.wav" as const, media_type: "audio" as const, title: "Größe – 成田 ✓" };

describe("the client against a server that drops, fails, limits, truncates and stalls", () => {
  it("retries dropped connections with backoff, then succeeds, re-sending the same body", async () => {
    const { server, clock, client } = await setup((n) => (n <= 2 ? { kind: "drop" } : created), { retry: { random: () => 0 } });
    const { response } = await drive(clock, client.POST("/v1/analyses", { body }));
    expect(response.status).toBe(202);
    expect(server.requests.map((r) => r.body.toString())).toEqual(Array(3).fill(JSON.stringify(body)));
    expect(new Set(server.requests.map((r) => `${r.headers["content-type"]} ${r.headers["x-api-key"]}`)).size).toBe(1);
    expect(clock.time).toBe(250 + 500); // two back-off waits, [d/2, d) with d = 500, 1000
  });

  it("gives up after the attempts allowed, with the network error, having waited only its back-off", async () => {
    const { server, clock, client } = await setup(() => ({ kind: "drop" }), { retry: { random: () => 0 } });
    const { error } = await settle(drive(clock, client.GET("/v1/analyses")));
    expect(error).toBeInstanceOf(TypeError); // fetch's "fetch failed", its cause the closed socket
    expect(server.requests).toHaveLength(3);
    expect(clock.time).toBe(750);
  });

  it("answers 429 three times, then 200: four attempts, the same bytes each time (the upload takes no Idempotency-Key: a 500 would not be retried)", async () => {
    const bytes = new Uint8Array(50_000).map((_, i) => (i * 31) % 256);
    const { server, clock, client } = await setup((n) => (n <= 3 ? { kind: "status", status: 429, body: example(429), headers: { "Retry-After": "0" } } : created), {
      retry: { maxAttempts: 4, random: () => 0 },
    });
    const { response } = await drive(clock, client.streamUpload({ query: { media_type: "audio" }, body: bytes }));
    expect(response.status).toBe(202);
    expect(server.requests).toHaveLength(4);
    for (const r of server.requests) expect(Buffer.compare(r.body, Buffer.from(bytes))).toBe(0);
  });

  it("stops at the time budget and hands out the last 500 as a typed error with its response", async () => {
    const { server, clock, client } = await setup(() => ({ kind: "status", status: 500, body: example(500), headers: { "X-Request-Id": "req_1" } }), {
      retry: { maxAttempts: 10, baseDelayMs: 100, random: () => 0.999, maxElapsedMs: 1000 },
    });
    const { error } = await settle(drive(clock, unwrap(client.GET("/v1/analyses"))));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: "server", status: 500, method: "GET", path: "/v1/analyses" });
    expect((error as ApiError).response.headers.get("X-Request-Id")).toBe("req_1");
    // Waits of ~100, 200 and 400 ms; the next (~800) would end after the 1000 ms budget, so it is not started.
    expect(server.requests).toHaveLength(4);
    expect(clock.time).toBeLessThanOrEqual(1000);
  });

  it("waits Retry-After seconds after a 429 before the next attempt, on the injected clock", async () => {
    const limited = { kind: "status", status: 429, body: example(429), headers: { "Retry-After": "2" } } as const;
    const { server, clock, client } = await setup((n) => (n === 1 ? limited : created), { retry: { random: () => 0 } });
    const pending = client.POST("/v1/analyses", { body });
    await server.received(1);
    expect(await clock.untilTimer()).toBe(2000);
    await clock.advance(1999);
    await new Promise((r) => setTimeout(r, 20)); // a premature second attempt would have had time to arrive
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    expect((await drive(clock, pending)).response.status).toBe(202);
    expect(server.requests.map((r) => r.body.toString())).toEqual([JSON.stringify(body), JSON.stringify(body)]);
  });

  it("fails at once with RateLimitError when Retry-After lies beyond the budget, keeping the response", async () => {
    const daily = errorExamples().find((e) => e.name === "daily_limit_exceeded")!.body;
    const { server, clock, client } = await setup(() => ({ kind: "status", status: 429, body: daily, headers: { "Retry-After": String(daily.retry_after) } }));
    const { error } = await settle(unwrap(client.GET("/v1/analyses")));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ error: "daily_limit_exceeded", retry_after: daily.retry_after });
    expect((error as RateLimitError).response.headers.get("Retry-After")).toBe(String(daily.retry_after));
    expect(server.requests).toHaveLength(1);
    expect(clock.time).toBe(0);
  });

  it("rejects a JSON body cut short once, without retrying an answer the server did give", async () => {
    const text = JSON.stringify({ data: [{ id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" }], next_cursor: null, has_more: false });
    const { server, clock, client } = await setup(() => ({ kind: "truncate", status: 200, text, cut: 20 }));
    const { error } = await settle(drive(clock, client.GET("/v1/analyses")));
    expect(error).toBeInstanceOf(Error);
    expect(server.requests).toHaveLength(1);
    // A complete body that is not JSON fails the same way, once.
    const bad = await setup(() => ({ kind: "status", status: 200, body: text.slice(0, 30) }));
    expect((await settle(bad.client.GET("/v1/analyses"))).error).toBeInstanceOf(SyntaxError);
    expect(bad.server.requests).toHaveLength(1);
  });

  it("retries a 500 whose body was cut short like any 500 (its body is dropped unread)", async () => {
    const { server, clock, client } = await setup((n) => (n === 1 ? { kind: "truncate", status: 500, text: JSON.stringify(example(500)), cut: 5 } : created), { retry: { random: () => 0 } });
    expect((await drive(clock, client.POST("/v1/analyses", { body }))).response.status).toBe(202);
    expect(server.requests).toHaveLength(2);
  });

  it("times out attempts that get no headers, retries them, and gives up with TimeoutError; the server sees each close", async () => {
    const { server, clock, client } = await setup(() => ({ kind: "stall" }), { timeoutMs: 150, retry: { maxAttempts: 2, random: () => 0 } });
    const result = settle(client.GET("/v1/analyses"));
    await server.received(1);
    await clock.advance(150);
    await clock.advance(await clock.untilTimer()); // back-off, 250
    await server.received(2);
    await clock.advance(150);
    const { error } = await result;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(clock.time).toBe(150 + 250 + 150);
    await server.clientClosed(2);
  });

  it("times out a body that stalls after the headers, instead of waiting forever", async () => {
    const text = JSON.stringify({ data: [], next_cursor: null, has_more: false });
    const { server, clock, client } = await setup(() => ({ kind: "stall-body", status: 200, text, cut: 10 }), { timeoutMs: 150, retry: false });
    let headers!: () => void;
    const headersArrived = new Promise<void>((r) => (headers = r));
    client.use({ onResponse: () => void headers() }); // runs when the headers are in, before the body is read
    const result = settle(client.GET("/v1/analyses"));
    await headersArrived;
    expect(clock.pending).toEqual([150]); // the attempt's timeout still runs while the body is awaited
    await clock.advance(150);
    const { error } = await result;
    expect(error).toBeInstanceOf(TimeoutError);
    await server.clientClosed(1);
  });

  it.each([400, 401, 403, 404, 409, 422])("surfaces a %i once, as its typed error, with the response kept", async (status) => {
    const { server, client } = await setup(() => ({ kind: "status", status, body: example(status), headers: { "X-RateLimit-Remaining": "41" } }));
    const { error } = await settle(unwrap(client.POST("/v1/analyses", { body })));
    expect(error).toBeInstanceOf(status === 422 ? ValidationError : ApiError);
    const e = error as ApiError;
    expect(e).toMatchObject({ status, method: "POST", path: "/v1/analyses", body: example(status) });
    expect(e.response.status).toBe(status);
    expect(e.response.headers.get("X-RateLimit-Remaining")).toBe("41");
    if (status === 422) expect((e as ValidationError).errors).toEqual(example(422).detail);
    expect(server.requests).toHaveLength(1);
  });
});

describe("any sequence of faults (property)", () => {
  type Step = { kind: "drop" } | { kind: "status"; status: number } | { kind: "429"; retryAfter: number } | { kind: "truncate" };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constant({ kind: "drop" as const }),
    fc.constantFrom(500, 502, 503, 504).map((status) => ({ kind: "status" as const, status })),
    fc.integer({ min: 0, max: 3 }).map((retryAfter) => ({ kind: "429" as const, retryAfter })),
    fc.constant({ kind: "truncate" as const }),
  );
  const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300, maxElapsedMs: 5000, random: () => 0.5 };

  /** What the guide's rules say happens: how many attempts, the fake time waited, and the last step. */
  function expected(steps: Step[]): { attempts: number; waited: number; last: Step | null } {
    let waited = 0;
    for (let n = 1; ; n++) {
      const s = steps[n - 1];
      if (!s) return { attempts: n, waited, last: null };
      if (n >= policy.maxAttempts) return { attempts: n, waited, last: s };
      const d = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
      const wait = s.kind === "429" ? s.retryAfter * 1000 + 0.5 * policy.baseDelayMs : d / 2 + 0.5 * (d / 2);
      if (waited + wait > policy.maxElapsedMs) return { attempts: n, waited, last: s };
      waited += wait;
    }
  }

  it("retries or fails as documented, within the budget, and every attempt carries the first attempt's body", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 5 }), fc.jsonValue(), async (steps, value) => {
        const fault = (n: number): Fault => {
          const s = steps[n - 1];
          if (!s) return created;
          if (s.kind === "drop") return s;
          if (s.kind === "429") return { kind: "status", status: 429, body: example(429), headers: { "Retry-After": String(s.retryAfter) } };
          if (s.kind === "truncate") return { kind: "truncate", status: 503, text: JSON.stringify(example(500)), cut: 3 };
          return { kind: "status", status: s.status, body: example(500) };
        };
        const { server, clock, client } = await setup(fault, { retry: policy });
        const sent = { ...body, metadata: { value } };
        const outcome = await settle(drive(clock, client.POST("/v1/analyses", { body: sent as typeof body })));
        const want = expected(steps);
        expect(server.requests).toHaveLength(want.attempts);
        expect(clock.time).toBe(want.waited);
        expect(new Set(server.requests.map((r) => r.body.toString("base64")))).toEqual(new Set([Buffer.from(JSON.stringify(sent)).toString("base64")]));
        const last = want.last;
        if (last === null) expect(outcome.value?.response.status).toBe(202);
        else if (last.kind === "drop" || last.kind === "truncate") expect(outcome.error).toBeInstanceOf(Error);
        else expect(outcome.value?.response.status).toBe(last.kind === "429" ? 429 : last.status);
        await server.close();
      }),
      { numRuns: 40, seed: Number(process.env.FUZZ_SEED ?? 4242) },
    );
  }, 60_000);
});
