// The rate-limit parser `onRateLimit` is told with (headers.ts) is a module the transport loads with import() when a
// client has `onRateLimit` (decision C9): an app that never reads rate limits does not load it up front. If it cannot
// be loaded (a browser gone offline, a broken deployment), calls still succeed and `onRateLimit` is not told, as for
// a response whose headers are malformed; the next response tries the import again.
import { describe, expect, it, vi } from "vitest";
// client.ts, not the package root: the root's readRateLimit imports headers.ts statically.
import { createClient } from "../../src/client/client.js";

vi.mock("../../src/client/headers.js", async () => {
  throw new Error("the chunk could not be loaded");
});

const LIMITS = {
  "X-RateLimit-Limit": "60",
  "X-RateLimit-Remaining": "59",
  "X-RateLimit-Reset": "1700000060",
  "X-RateLimit-Daily-Limit": "1000",
  "X-RateLimit-Daily-Remaining": "999",
};

describe("onRateLimit, when the rate-limit parser cannot be loaded", () => {
  it("is not told; the call succeeds", async () => {
    const told: unknown[] = [];
    const fetch = async () => Response.json({ data: [] }, { headers: LIMITS });
    const client = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_x", fetch, onRateLimit: (r) => void told.push(r) });
    const { response, data } = await client.GET("/v1/analyses");
    expect(response.status).toBe(200);
    expect(data).toEqual({ data: [] });
    expect(told).toEqual([]);
  });
});
