import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS, TimeoutError } from "../../src/client/index.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { hang, json, replies, testClient, type Call, type FakeClock } from "./helpers.js";

const page = () => json(200, { data: [], next_cursor: null, has_more: false });

/**
 * Once a call is over, nothing of its timeout is left running: the client does not clear its timer (re-arming a
 * timer per call costs more than the rest of the timeout, npm run bench), so the timer fires once at the old
 * deadline, finds nothing to do, and is gone.
 */
async function expectNothingLeft(clock: FakeClock): Promise<void> {
  await clock.advance(DEFAULT_TIMEOUT_MS);
  expect(clock.pending).toEqual([]);
}

/**
 * A response whose body the test feeds chunk by chunk, erroring with the abort reason when the attempt's signal
 * aborts, as a real fetch's body does.
 */
function fedResponse(call: Call, headers: Record<string, string> = { "Content-Type": "application/json" }) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const signal = call.request.signal;
  signal.addEventListener("abort", () => feed.error(signal.reason));
  return {
    response: new Response(body, { status: 200, headers }),
    push: (text: string) => feed.enqueue(new TextEncoder().encode(text)),
    end: () => feed.close(),
  };
}

describe("timeouts", () => {
  it("gives up on an attempt after 30 s by default", async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    const { client, clock, calls } = testClient(hang, { retry: false });
    const settled = client.GET("/v1/analyses").catch((e: unknown) => e);
    expect(await clock.untilTimer()).toBe(30_000);
    await clock.advance(29_999);
    expect(clock.pending).toEqual([1]);
    await clock.advance(1);
    const error = await settled;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe("GET /v1/analyses got no response within 30000 ms");
    expect(calls[0]!.request.signal.aborted).toBe(true); // the attempt was really cancelled
  });

  it("takes a per-call override", async () => {
    const { client, clock } = testClient(hang, { retry: false });
    const settled = client.GET("/v1/analyses", { timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(await clock.untilTimer()).toBe(1500);
    await clock.advance(1500);
    expect(await settled).toMatchObject({ name: "TimeoutError", timeoutMs: 1500 });
  });

  it("treats a timeout like a network error: retried within the policy", async () => {
    const { client, clock, calls } = testClient(
      replies(
        () => new Promise<Response>(() => {}),
        () => json(200, { data: [], next_cursor: null, has_more: false }),
      ),
      { timeoutMs: 1000, retry: { random: () => 0 } },
    );
    const pending = client.GET("/v1/analyses");
    await clock.advance(1000); // the first attempt times out
    await clock.advance(await clock.untilTimer()); // backoff
    expect((await pending).response.status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  it("still lets the caller's signal abort an attempt that has a timeout", async () => {
    const { client, clock, calls } = testClient(hang, { retry: false });
    const ctrl = new AbortController();
    const settled = client.GET("/v1/analyses", { signal: ctrl.signal }).catch((e: unknown) => e);
    expect(await clock.untilTimer()).toBe(30_000);
    ctrl.abort(new Error("user gave up"));
    expect(await settled).toMatchObject({ message: "user gave up" });
    expect(calls[0]!.request.signal.aborted).toBe(true);
    await expectNothingLeft(clock);
  });

  it("lets the caller's signal abort a timed attempt also when middleware hands on a new Request", async () => {
    const { client, clock, calls } = testClient(hang, { retry: false });
    client.use({ onRequest: ({ request }) => new Request(request) });
    const ctrl = new AbortController();
    const settled = client.GET("/v1/analyses", { signal: ctrl.signal }).catch((e: unknown) => e);
    await clock.untilTimer();
    ctrl.abort(new Error("user gave up"));
    expect(await settled).toMatchObject({ message: "user gave up" });
    expect(calls[0]!.request.signal.aborted).toBe(true);
  });

  it("times out an event stream read whole (it never ends) instead of waiting forever", async () => {
    const { client, clock } = testClient((call) => fedResponse(call, { "Content-Type": "text/event-stream" }).response, { timeoutMs: 1000, retry: false });
    const settled = client.GET("/v1/analysis/{id}/stream", { params: { path: { id: "anl_1" } }, parseAs: "text" }).catch((e: unknown) => e);
    await clock.untilTimer();
    await clock.advance(600); // the headers come in at 600 ms
    await clock.advance(999);
    expect(clock.pending).toEqual([1]); // the body has the timeout again from its headers
    await clock.advance(1);
    expect(await settled).toBeInstanceOf(TimeoutError);
  });

  it("is over once the body has been read: the deadline passing later aborts nothing, and the next call reuses its signal", async () => {
    const { client, clock, calls } = testClient(page);
    const { data } = await client.GET("/v1/analyses");
    expect(data).toEqual({ data: [], next_cursor: null, has_more: false });
    await expectNothingLeft(clock);
    expect(calls[0]!.request.signal.aborted).toBe(false);
    // The next attempt is given the same signal (creating one costs a quarter of a call), timed from its own start.
    const next = client.GET("/v1/analyses", { timeoutMs: 1000 });
    await clock.advance(500);
    await next;
    expect(calls[1]!.init?.signal).toBe(calls[0]!.init?.signal);
    await clock.advance(1000);
    expect(calls[1]!.request.signal.aborted).toBe(false);
  });

  it("never gives an attempt a signal still in use, nor one that has aborted", async () => {
    let fed!: ReturnType<typeof fedResponse>;
    const { client, clock, calls } = testClient((call, n) => (n === 1 ? (fed = fedResponse(call)).response : page()), { timeoutMs: 1000, retry: false });
    const slow = client.GET("/v1/analyses").catch((e: unknown) => e); // its body stalls
    await clock.settle();
    await client.GET("/v1/analyses"); // meanwhile
    expect(calls[1]!.init?.signal).not.toBe(calls[0]!.init?.signal);
    fed.push("{");
    await clock.advance(1000);
    expect(await slow).toBeInstanceOf(TimeoutError);
    expect(calls[0]!.request.signal.aborted).toBe(true);
    expect(calls[1]!.request.signal.aborted).toBe(false); // the other call's signal was not touched
    await client.GET("/v1/analyses");
    expect(calls[2]!.init?.signal).toBe(calls[1]!.init?.signal); // the unused one is reused, never the aborted one
  });

  it("gives a body read whole (JSON) the timeout again from its headers, then fails with TimeoutError", async () => {
    let fed!: ReturnType<typeof fedResponse>;
    const { client, clock } = testClient((call) => (fed = fedResponse(call)).response, { timeoutMs: 1000, retry: false });
    const settled = client.GET("/v1/analyses").catch((e: unknown) => e);
    await clock.untilTimer();
    await clock.advance(600); // the headers come late, but in time
    await clock.settle();
    fed.push('{"data": [');
    await clock.advance(999); // 1599 ms into the attempt, 999 ms after the headers: still waiting
    expect(clock.pending).toEqual([1]);
    await clock.advance(1);
    expect(await settled).toMatchObject({ name: "TimeoutError", timeoutMs: 1000, message: "GET /v1/analyses got no response within 1000 ms" });
  });

  it("lets a streamed body (parseAs: stream) flow for longer than the timeout, chunk by chunk, and times out a stalled one", async () => {
    let fed!: ReturnType<typeof fedResponse>;
    const { client, clock } = testClient((call) => (fed = fedResponse(call, { "Content-Type": "application/octet-stream" })).response, {
      timeoutMs: 1000,
      retry: false,
    });
    const { data } = await client.GET("/v1/analyses", { parseAs: "stream" });
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    for (let i = 0; i < 5; i++) {
      await clock.advance(900); // 4.5 s in all, never 1 s without a chunk
      fed.push(`chunk ${i};`);
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(`chunk ${i};`);
    }
    const stalled = reader.read().catch((e: unknown) => e);
    await clock.advance(999);
    expect(clock.pending).toEqual([1]);
    await clock.advance(1);
    expect(await stalled).toBeInstanceOf(TimeoutError);
  });

  it("is over when a streamed body ends or is cancelled, and at once without a body; an event stream is not timed once open", async () => {
    let fed!: ReturnType<typeof fedResponse>;
    const { client, clock, calls } = testClient((call) => (fed = fedResponse(call, { "Content-Type": "application/octet-stream" })).response, { retry: false });
    const read = await client.GET("/v1/analyses", { parseAs: "stream" });
    fed.push("all of it");
    fed.end();
    expect(await new Response(read.data as ReadableStream).text()).toBe("all of it");
    await expectNothingLeft(clock);
    expect(calls[0]!.request.signal.aborted).toBe(false);

    const cancelled = await client.GET("/v1/analyses", { parseAs: "stream" });
    expect(clock.pending).toEqual([DEFAULT_TIMEOUT_MS]);
    await (cancelled.data as ReadableStream).cancel();
    await expectNothingLeft(clock);
    expect(calls[1]!.request.signal.aborted).toBe(false);

    const gone = testClient(() => new Response(null, { status: 204 }), { retry: false });
    expect((await gone.client.DELETE("/v1/speakers/{speaker_id}", { params: { path: { speaker_id: "spk_01HZX1C4S8E2K6M0P3R7T9V5W1" } } })).response.status).toBe(204);
    await expectNothingLeft(gone.clock); // no body: nothing more to wait for
    expect(gone.calls[0]!.request.signal.aborted).toBe(false);

    let events!: ReturnType<typeof fedResponse>;
    const sse = testClient((call) => (events = fedResponse(call, { "Content-Type": "text/event-stream" })).response, { retry: false });
    const stream = await sse.client.GET("/v1/analysis/{id}/stream", { params: { path: { id: "anl_1" } }, parseAs: "stream" });
    await expectNothingLeft(sse.clock); // quiet for long by design: not timed once open
    events.push(": keep-alive\n\n");
    const reader = (stream.data as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(": keep-alive\n\n");
    expect(sse.calls[0]!.request.signal.aborted).toBe(false);
  });

  it("keeps the response a Response that middleware can clone and read beside the client", async () => {
    const { client, clock } = testClient(() => json(200, { data: [], next_cursor: null, has_more: false }, { "X-Trace": "t1" }));
    const seen: unknown[] = [];
    client.use({
      async onResponse({ response }) {
        expect(response).toBeInstanceOf(Response);
        seen.push(response.headers.get("X-Trace"), await response.clone().json());
      },
    });
    const { data } = await client.GET("/v1/analyses");
    expect(data).toEqual({ data: [], next_cursor: null, has_more: false });
    expect(seen).toEqual(["t1", { data: [], next_cursor: null, has_more: false }]);
    await expectNothingLeft(clock);
  });

  it("never keeps a process alive by itself (an unread body's timer is unref'd)", () => {
    const script = `
      import { createClient } from "./src/client/index.ts";
      const fetch = async () => new Response('{"data":[]}', { headers: { "Content-Type": "application/json" } });
      const client = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_k", fetch, timeoutMs: 60000 });
      await client.GET("/v1/analyses", { parseAs: "stream" }); // the body is never read
      console.log("called");
    `;
    const started = Date.now();
    const r = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(r.stdout.trim()).toBe("called");
    expect(r.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000); // it did not wait for the 60 s timer
  });

  it("can be turned off with 0 and rejects nonsense", async () => {
    const { client, clock } = testClient(() => json(200, { data: [], next_cursor: null, has_more: false }), { timeoutMs: 0 });
    await client.GET("/v1/analyses");
    expect(clock.pending).toEqual([]);
    await expect(client.GET("/v1/analyses", { timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be a non-negative number/);
  });
});
