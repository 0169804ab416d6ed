// How the client sends a request body (the write path's serializer, write.ts, decision C9): a Blob, bytes, FormData,
// URLSearchParams or a stream as they are, a string as it is under a content type other than JSON, any other body
// through the JSON serializer (openapi-fetch's, or the client's `bodySerializer`), on every method of the contract
// that takes a body (POST, PUT, PATCH).
import { describe, expect, it } from "vitest";
import { testClient } from "./helpers.js";

const ok = () => Response.json({}, { status: 200 });

describe("request bodies", () => {
  // First in the file: the write path is loaded by this PUT, not by an earlier POST (a module loaded stays loaded).
  it("a Blob and bytes go as they are; a string under a non-JSON type too, and as JSON under JSON", async () => {
    const { client, calls } = testClient(ok, { retry: false });
    await client.PUT("/v1/consent", { body: new Blob(["blob bytes"]) as never, headers: { "Content-Type": "application/octet-stream" } });
    await client.PUT("/v1/consent", { body: new TextEncoder().encode("raw bytes") as never, headers: { "Content-Type": "application/octet-stream" } });
    await client.PUT("/v1/consent", { body: "plain text" as never, headers: { "Content-Type": "text/plain" } });
    await client.PUT("/v1/consent", { body: "a JSON string" as never });
    expect(calls.map((c) => c.body)).toEqual(["blob bytes", "raw bytes", "plain text", '"a JSON string"']);
  });

  it("an object is sent as JSON, on POST, PUT and PATCH", async () => {
    const { client, calls } = testClient(ok, { retry: false });
    await client.POST("/v1/query", { body: { query: "a" } as never });
    await client.PUT("/v1/consent", { body: { analytics: true } as never });
    await client.PATCH("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_1" } }, body: { title: "t" } as never });
    expect(calls.map((c) => [c.method, c.headers.get("content-type"), c.body])).toEqual([
      ["POST", "application/json", '{"query":"a"}'],
      ["PUT", "application/json", '{"analytics":true}'],
      ["PATCH", "application/json", '{"title":"t"}'],
    ]);
  });

  it("the client's bodySerializer gets the JSON bodies only", async () => {
    const seen: unknown[] = [];
    const bodySerializer = (body: unknown) => (seen.push(body), `custom:${JSON.stringify(body)}`);
    const { client, calls } = testClient(ok, { retry: false, bodySerializer });
    await client.PUT("/v1/consent", { body: { analytics: false } as never });
    await client.streamUpload({ query: { media_type: "audio" }, body: new TextEncoder().encode("media") });
    expect(calls.map((c) => c.body)).toEqual(['custom:{"analytics":false}', "media"]);
    expect(seen).toEqual([{ analytics: false }]);
  });
});
