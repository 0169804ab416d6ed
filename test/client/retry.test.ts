import { describe, expect, it } from "vitest";
import { RETRY_DEFAULTS } from "../../src/client/index.js";
import { errorExamples, hang, json, replies, testClient } from "./helpers.js";

const page = () => json(200, { data: [], next_cursor: null, has_more: false });
const example = (status: number, name?: string) => errorExamples().find((e) => e.status === status && (!name || e.name === name))!;
const rateLimited = (name = "rate_limit_exceeded") => {
  const e = example(429, name);
  return () => json(429, e.body, { "Retry-After": String(e.body.retry_after) });
};
const serverError = () => json(500, example(500).body);

describe("retries", () => {
  it("waits at least Retry-After seconds after a 429, then retries", async () => {
    const retryAfter = example(429, "rate_limit_exceeded").body.retry_after as number;
    const { client, clock, calls } = testClient(replies(rateLimited(), page), { timeoutMs: 0, retry: { random: () => 0.999 } });
    const pending = client.GET("/v1/analyses");
    const wait = await clock.untilTimer();
    expect(wait).toBeGreaterThanOrEqual(retryAfter * 1000);
    await clock.advance(retryAfter * 1000 - 1);
    expect(calls).toHaveLength(1);
    await clock.advance(wait - (retryAfter * 1000 - 1));
    const { response } = await pending;
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  it("does not wait past the time budget: the daily limit's long Retry-After is answered at once", async () => {
    const { client, clock, calls } = testClient(replies(rateLimited("daily_limit_exceeded"), page), { timeoutMs: 0 });
    const { response, error } = await client.GET("/v1/analyses");
    expect(response.status).toBe(429);
    expect(error).toMatchObject({ error: "daily_limit_exceeded" });
    expect(calls).toHaveLength(1);
    expect(clock.pending).toEqual([]);
  });

  it("backs off exponentially with jitter after 500s, within [d/2, d)", async () => {
    for (const [random, expected] of [
      [0, [250, 500]],
      [0.999, [499.75, 999.5]],
    ] as const) {
      const { client, clock, calls } = testClient(serverError, {
        timeoutMs: 0,
        retry: { maxAttempts: 3, baseDelayMs: 500, random: () => random },
      });
      const pending = client.GET("/v1/analyses");
      const waits: number[] = [];
      for (let i = 0; i < 2; i++) {
        waits.push(await clock.untilTimer());
        await clock.advance(waits[i]!);
      }
      const { response } = await pending;
      expect(waits).toEqual(expected);
      expect(response.status).toBe(500);
      expect(calls).toHaveLength(3);
    }
  });

  it("caps one backoff wait at maxDelayMs", async () => {
    const { client, clock } = testClient(serverError, {
      timeoutMs: 0,
      retry: { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 3000, random: () => 0.5, maxElapsedMs: 1e9 },
    });
    const pending = client.GET("/v1/analyses");
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      waits.push(await clock.untilTimer());
      await clock.advance(waits[i]!);
    }
    await pending;
    expect(waits).toEqual([750, 1500, 2250, 2250, 2250]); // 3/4 of 1000, 2000, then the 3000 cap
  });

  it("retries network errors, then gives up with the last error after maxAttempts", async () => {
    const { client, clock, calls } = testClient(
      () => {
        throw new TypeError("fetch failed");
      },
      { timeoutMs: 0, retry: { maxAttempts: 4, random: () => 0 } },
    );
    const pending = client.GET("/v1/analyses");
    const settled = pending.catch((e: unknown) => e);
    for (let i = 0; i < 3; i++) await clock.advance(await clock.untilTimer());
    expect(await settled).toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(4);
  });

  it("stops when the next wait would end after maxElapsedMs", async () => {
    const { client, clock, calls } = testClient(serverError, {
      timeoutMs: 0,
      retry: { maxAttempts: 10, baseDelayMs: 1000, random: () => 0.999, maxElapsedMs: 3500 },
    });
    const pending = client.GET("/v1/analyses");
    await clock.advance(await clock.untilTimer()); // ~1000
    await clock.advance(await clock.untilTimer()); // ~2000: 3000 spent, a 4000 wait would overrun
    const { response } = await pending;
    expect(response.status).toBe(500);
    expect(calls).toHaveLength(3);
  });

  it("does not retry other statuses (400, 401, 403, 404, 409, 422)", async () => {
    for (const status of [400, 401, 403, 404, 409, 422]) {
      const { client, calls } = testClient(() => json(status, example(status).body), { timeoutMs: 0 });
      const { response } = await client.GET("/v1/analyses");
      expect(response.status).toBe(status);
      expect(calls).toHaveLength(1);
    }
  });

  it("can be turned off for the client and for one call", async () => {
    const off = testClient(serverError, { retry: false, timeoutMs: 0 });
    expect((await off.client.GET("/v1/analyses")).response.status).toBe(500);
    expect(off.calls).toHaveLength(1);

    const perCall = testClient(serverError, { timeoutMs: 0 });
    expect((await perCall.client.GET("/v1/analyses", { retry: false })).response.status).toBe(500);
    expect(perCall.calls).toHaveLength(1);

    const fewer = testClient(serverError, { timeoutMs: 0, retry: { random: () => 0 } });
    const pending = fewer.client.GET("/v1/analyses", { retry: { maxAttempts: 2 } });
    await fewer.clock.advance(await fewer.clock.untilTimer());
    expect((await pending).response.status).toBe(500);
    expect(fewer.calls).toHaveLength(2);
  });

  it("re-sends the request body intact on every attempt", async () => {
    const body = { media_url: "https://media.example.com/call-0142.wav" as const, media_type: "audio" as const, title: "Größe – 成田 ✓" };
    const { client, clock, calls } = testClient(replies(serverError, serverError, () => json(202, { id: "anl_x" })), {
      timeoutMs: 0,
      retry: { random: () => 0 },
    });
    const pending = client.POST("/v1/analyses", { body });
    for (let i = 0; i < 2; i++) await clock.advance(await clock.untilTimer());
    expect((await pending).response.status).toBe(202);
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.body)).toEqual([JSON.stringify(body), JSON.stringify(body), JSON.stringify(body)]);
    expect(calls.every((c) => c.headers.get("Content-Type") === "application/json")).toBe(true);
  });

  it("re-sends a binary body byte for byte (after a 429: the upload takes no Idempotency-Key, so a 500 is not retried)", async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const { client, clock, calls } = testClient(replies(rateLimited(), () => json(202, {})), { timeoutMs: 0, retry: { random: () => 0 } });
    const seen: Uint8Array[] = [];
    const pending = client.streamUpload({ query: { media_type: "audio" }, body: bytes });
    await clock.advance(await clock.untilTimer());
    await pending;
    for (const c of calls) seen.push(new Uint8Array(await c.request.arrayBuffer()));
    expect(calls).toHaveLength(2);
    expect(seen.map((s) => Buffer.from(s).equals(Buffer.from(bytes)))).toEqual([true, true]);
    expect(calls[0]!.headers.get("Content-Type")).toBe("application/octet-stream");
  });

  it("sends a streamed (ReadableStream) body once and never retries it", async () => {
    const chunks = ["RIFF", "....", "WAVE"];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(next));
      },
    });
    const { client, clock, calls } = testClient(serverError, { timeoutMs: 0 });
    const { response } = await client.streamUpload({ query: { media_type: "audio" }, body: stream });
    expect(response.status).toBe(500);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toBe("RIFF....WAVE");
    expect(clock.pending).toEqual([]);
  });

  it("ends at once when aborted during a backoff wait", async () => {
    const { client, clock, calls } = testClient(serverError, { timeoutMs: 0 });
    const ctrl = new AbortController();
    const settled = client.GET("/v1/analyses", { signal: ctrl.signal }).catch((e: unknown) => e);
    await clock.untilTimer();
    ctrl.abort();
    const error = await settled;
    expect((error as Error).name).toBe("AbortError");
    expect(calls).toHaveLength(1);
    expect(clock.pending).toEqual([]); // the wait's timer was cleared, no time had to pass
  });

  it("does not retry when the caller aborts the request itself", async () => {
    const { client, clock, calls } = testClient(hang, { timeoutMs: 0 });
    const ctrl = new AbortController();
    const settled = client.GET("/v1/analyses", { signal: ctrl.signal }).catch((e: unknown) => e);
    await clock.settle();
    ctrl.abort(new Error("user gave up"));
    expect(await settled).toMatchObject({ message: "user gave up" });
    expect(calls).toHaveLength(1);
  });

  it("has documented defaults", () => {
    expect(RETRY_DEFAULTS).toMatchObject({ maxAttempts: 3, maxElapsedMs: 60_000, retryRateLimited: true, retryNetworkErrors: true });
    expect(RETRY_DEFAULTS.retryStatuses).toContain(500);
  });
});
