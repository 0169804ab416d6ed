// The write path (Idempotency-Key, form bodies) is a module the client loads with import() the first time a call
// needs it (decision C16). If it cannot be loaded (a browser gone offline, a broken deployment), that call fails with
// the loading error before anything is sent (never a keyed write without its key, nor a form sent as JSON); reads,
// which never need it, still work.
import { describe, expect, it, vi } from "vitest";
import { createClient } from "../../src/client/index.js";

/** A client whose fetch records the methods it is asked to send (not helpers.ts's, which imports write.ts itself). */
function testClient() {
  const calls: string[] = [];
  const fetch = async (request: Request) => {
    calls.push(request.method);
    return Response.json({}, { status: 202 });
  };
  return { client: createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_x", fetch, retry: false }), calls };
}

vi.mock("../../src/client/write.js", () => {
  throw new Error("the chunk could not be loaded");
});

describe("a write, when the write-path module cannot be loaded", () => {
  it("fails unsent; a read still goes out", async () => {
    const { client, calls } = testClient();
    await expect(client.POST("/v1/analyses", { body: { media_url: "https://example.com/a.mp3", media_type: "audio" } as never })).rejects.toBeInstanceOf(Error);
    await expect(client.POST("/v1/oauth/token", { body: { grant_type: "client_credentials", client_id: "app" } as never })).rejects.toBeInstanceOf(Error);
    expect(calls).toHaveLength(0);
    const { response } = await client.GET("/v1/analyses");
    expect(response.status).toBe(202);
    expect(calls).toEqual(["GET"]);
  });
});
