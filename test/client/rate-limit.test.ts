import { describe, expect, expectTypeOf, it } from "vitest";
import { createClient, readRateLimit, RATE_LIMIT_HEADERS, type RateLimit } from "../../src/client/index.js";
import { BASE, doc, errorExamples, json, replies, testClient } from "./helpers.js";

const headers = {
  "X-RateLimit-Limit": "150",
  "X-RateLimit-Remaining": "149",
  "X-RateLimit-Reset": "1763737260",
  "X-RateLimit-Daily-Limit": "10000",
  "X-RateLimit-Daily-Remaining": "9874",
};

describe("readRateLimit", () => {
  it("reads the five headers into numbers", () => {
    const info = readRateLimit(new Response(null, { headers }));
    expectTypeOf(info).toEqualTypeOf<RateLimit | undefined>();
    expect(info).toEqual({ limit: 150, remaining: 149, reset: 1763737260, daily_limit: 10000, daily_remaining: 9874 });
  });

  it("adds retry_after on a 429, and reads a Headers object too", () => {
    const h = new Headers({ ...headers, "Retry-After": "42" });
    expect(readRateLimit(h)?.retry_after).toBe(42);
    expect(readRateLimit({ headers: h })?.retry_after).toBe(42);
  });

  it("gives undefined for a response without them (the gateway's /health)", () => {
    expect(readRateLimit(new Response("ok"))).toBeUndefined();
  });

  it("names the header that is missing or malformed", () => {
    const { "X-RateLimit-Reset": _, ...four } = headers;
    expect(() => readRateLimit(new Headers(four))).toThrow("rate-limit headers missing: X-RateLimit-Reset");
    expect(() => readRateLimit(new Headers({ ...headers, "X-RateLimit-Remaining": "-1" }))).toThrow(/X-RateLimit-Remaining/);
  });

  it("uses the header names of the contract's x-rate-limit-policy", () => {
    expect(RATE_LIMIT_HEADERS).toEqual(doc["x-rate-limit-policy"].headers);
  });
});

describe("onRateLimit", () => {
  const page = { data: [], next_cursor: null, has_more: false };
  const limited = errorExamples().find((e) => e.status === 429 && e.name === "rate_limit_exceeded")!.body;

  it("is told the rate limits of every response, the retried 429 included, in order", async () => {
    const told: Array<[RateLimit, number]> = [];
    const { client, clock } = testClient(
      replies(
        () => json(429, limited, { ...headers, "X-RateLimit-Remaining": "0", "Retry-After": "0" }),
        () => json(200, page, { ...headers, "X-RateLimit-Remaining": "148" }),
      ),
      { timeoutMs: 0, retry: { random: () => 0 }, onRateLimit: (r, response) => void told.push([r, response.status]) },
    );
    const pending = client.GET("/v1/analyses");
    await clock.advance(await clock.untilTimer()); // the wait after the 429
    const { response } = await pending;
    expect(response.status).toBe(200);
    expect(told).toEqual([
      [{ limit: 150, remaining: 0, reset: 1763737260, daily_limit: 10000, daily_remaining: 9874, retry_after: 0 }, 429],
      [{ limit: 150, remaining: 148, reset: 1763737260, daily_limit: 10000, daily_remaining: 9874 }, 200],
    ]);
  });

  it("is not told about responses without the headers or with malformed ones, and the call still succeeds", async () => {
    const told: RateLimit[] = [];
    const { client } = testClient(
      replies(
        () => json(200, page),
        () => json(200, page, { ...headers, "X-RateLimit-Reset": "soon" }),
      ),
      { timeoutMs: 0, onRateLimit: (r) => void told.push(r) },
    );
    expect((await client.GET("/v1/analyses")).data).toEqual(page);
    expect((await client.GET("/v1/analyses")).data).toEqual(page);
    expect(told).toEqual([]);
  });

  it("must be a function", () => {
    expect(() => createClient({ baseUrl: BASE, apiKey: "pk_test_k", onRateLimit: 42 as never })).toThrow("onRateLimit must be a function");
  });
});

describe("readRateLimit(client)", () => {
  const page = { data: [], next_cursor: null, has_more: false };
  const limited = errorExamples().find((e) => e.status === 429 && e.name === "rate_limit_exceeded")!.body;

  it("reads the latest response the client received, a retried one included, and nothing before the first", async () => {
    let n = 0;
    const { client, clock } = testClient(
      () => (++n === 1 ? json(429, limited, { ...headers, "X-RateLimit-Remaining": "0", "Retry-After": "1" }) : json(200, page, { ...headers, "X-RateLimit-Remaining": String(150 - n) })),
      { timeoutMs: 0, retry: { random: () => 0 } },
    );
    expect(readRateLimit(client)).toBeUndefined();
    const pending = client.GET("/v1/analyses");
    await clock.untilTimer(); // waiting after the 429: the client has seen it
    expect(readRateLimit(client)).toEqual({ ...readRateLimit(new Headers(headers)), remaining: 0, retry_after: 1 });
    await clock.advance(1000);
    await pending;
    expect(readRateLimit(client)?.remaining).toBe(148);
    await client.GET("/v1/analyses");
    expect(readRateLimit(client)?.remaining).toBe(147);
  });

  it("gives undefined once the latest response carries none (the gateway's /health)", async () => {
    const { client } = testClient(replies(() => json(200, page, headers), () => json(200, { status: "ok" })), { timeoutMs: 0 });
    await client.GET("/v1/analyses");
    expect(readRateLimit(client)?.limit).toBe(150);
    await client.GET("/v1/analyses");
    expect(readRateLimit(client)).toBeUndefined();
  });
});
