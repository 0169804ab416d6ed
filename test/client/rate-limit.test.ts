import { describe, expect, expectTypeOf, it } from "vitest";
import { readRateLimit, RATE_LIMIT_HEADERS, type RateLimit } from "../../src/client/index.js";
import { doc } from "./helpers.js";

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
