// The write path (Idempotency-Key, form bodies, the body serializer, and the contract's facts it reads) is a module
// the client loads with import() the first time it sends a method that takes a key or a body in the contract, POST,
// PUT or PATCH (decision C9). If it cannot be loaded (a browser gone offline, a broken deployment), that call fails
// with the loading error before anything is sent (never a keyed write without its key, nor a form sent as JSON);
// reads and DELETE still go out.
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
    // A POST that takes neither a key nor a form, a PUT and a streamed upload still wait for the write path, which
    // serializes their bodies.
    await expect(client.POST("/v1/query", { body: { query: "x" } as never })).rejects.toBeInstanceOf(Error);
    await expect(client.PUT("/v1/consent", { body: {} as never })).rejects.toBeInstanceOf(Error);
    await expect(client.streamUpload({ query: { media_type: "audio" }, body: new Uint8Array(1) })).rejects.toBeInstanceOf(Error);
    expect(calls).toHaveLength(0);
    const { response } = await client.GET("/v1/analyses");
    expect(response.status).toBe(202);
    await client.DELETE("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_1" } } });
    expect(calls).toEqual(["GET", "DELETE"]);
  });
});
