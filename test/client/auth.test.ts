import { describe, expect, it, vi } from "vitest";
import { createClient, CredentialsError, type Middleware } from "../../src/client/index.js";
import { API_KEY, BASE, json, replies, scriptedFetch, testClient } from "./helpers.js";

const ok = () => json(200, { data: [], next_cursor: null, has_more: false });
const JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c3JfMDEifQ.c2lnbmF0dXJl";

describe("credentials", () => {
  it("sends an API key as X-API-Key and no Authorization", async () => {
    const { client, calls } = testClient(ok);
    const { response } = await client.GET("/v1/analyses");
    expect(response.status).toBe(200);
    expect(calls[0]!.headers.get("X-API-Key")).toBe(API_KEY);
    expect(calls[0]!.headers.has("Authorization")).toBe(false);
  });

  it("sends a JWT as Authorization: Bearer and no X-API-Key", async () => {
    const { client, calls } = testClient(ok, { apiKey: undefined, token: JWT });
    await client.GET("/v1/analyses");
    expect(calls[0]!.headers.get("Authorization")).toBe(`Bearer ${JWT}`);
    expect(calls[0]!.headers.has("X-API-Key")).toBe(false);
  });

  it("calls a token function before every attempt, so a retry carries a fresh token", async () => {
    let n = 0;
    const token = vi.fn(async () => `${JWT}${++n}`);
    const { client, calls, clock } = testClient(
      replies(
        () => json(500, { detail: "boom" }),
        () => ok(),
      ),
      { apiKey: undefined, token, retry: { random: () => 0 } },
    );
    const pending = client.GET("/v1/analyses");
    await clock.untilTimer();
    await clock.advance(10_000);
    await pending;
    expect(token).toHaveBeenCalledTimes(2);
    expect(calls.map((c) => c.headers.get("Authorization"))).toEqual([`Bearer ${JWT}1`, `Bearer ${JWT}2`]);
  });

  it("accepts a synchronous token function", async () => {
    const { client, calls } = testClient(ok, { apiKey: undefined, token: () => JWT });
    await client.GET("/v1/analyses");
    expect(calls[0]!.headers.get("Authorization")).toBe(`Bearer ${JWT}`);
  });

  it("refuses to build a client without credentials, before any request", () => {
    const { fetch, calls } = scriptedFetch(ok);
    expect(() => createClient({ baseUrl: BASE, fetch })).toThrow(CredentialsError);
    expect(() => createClient({ baseUrl: BASE, fetch })).toThrow(/apiKey.*token/);
    expect(calls).toHaveLength(0);
  });

  it("refuses both kinds at once, and empty or malformed values, without echoing them", () => {
    const { fetch } = scriptedFetch(ok);
    expect(() => createClient({ baseUrl: BASE, fetch, apiKey: API_KEY, token: JWT })).toThrow(/not both/);
    expect(() => createClient({ baseUrl: BASE, fetch, apiKey: "" })).toThrow(CredentialsError);
    const bad = "pk_test_with space\r\nX-Evil: 1";
    try {
      createClient({ baseUrl: BASE, fetch, apiKey: bad });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CredentialsError);
      expect(String((e as Error).message)).not.toContain("with space");
    }
  });

  it("rejects a token function's empty result before sending anything", async () => {
    const { client, calls } = testClient(ok, { apiKey: undefined, token: async () => "" });
    await expect(client.GET("/v1/analyses")).rejects.toBeInstanceOf(CredentialsError);
    expect(calls).toHaveLength(0);
  });

  it("adds credentials below the middleware, so middleware (and its logs) never sees them", async () => {
    const seen: Array<string | null> = [];
    const spy: Middleware = {
      onRequest({ request }) {
        seen.push(request.headers.get("X-API-Key"));
      },
    };
    const { client, calls } = testClient(ok, { middleware: [spy] });
    await client.GET("/v1/analyses");
    expect(seen).toEqual([null]);
    expect(calls[0]!.headers.get("X-API-Key")).toBe(API_KEY);
  });
});
