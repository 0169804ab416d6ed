import { describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS, TimeoutError } from "../../src/client/index.js";
import { hang, json, replies, testClient } from "./helpers.js";

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
    expect(clock.pending).toEqual([]);
  });

  it("clears its timer once the response headers arrive", async () => {
    const { client, clock } = testClient(() => json(200, { data: [], next_cursor: null, has_more: false }));
    await client.GET("/v1/analyses");
    expect(clock.pending).toEqual([]);
  });

  it("can be turned off with 0 and rejects nonsense", async () => {
    const { client, clock } = testClient(() => json(200, { data: [], next_cursor: null, has_more: false }), { timeoutMs: 0 });
    await client.GET("/v1/analyses");
    expect(clock.pending).toEqual([]);
    await expect(client.GET("/v1/analyses", { timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be a non-negative number/);
  });
});
