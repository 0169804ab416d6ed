// The stream-body timeout is a module the transport loads with import() the first time a body is read as a stream
// (decision P10). If it cannot be loaded (a browser gone offline, a broken deployment), the call still succeeds and
// the body keeps the deadline of its headers: it must arrive whole within the timeout instead of chunk by chunk.
import { describe, expect, it, vi } from "vitest";
import { TimeoutError } from "../../src/client/index.js";
import { testClient } from "./helpers.js";

vi.mock("../../src/client/body-timeout.js", () => {
  throw new Error("the chunk could not be loaded");
});

describe("a body read as a stream, when the body-timeout module cannot be loaded", () => {
  it("is handed out, and keeps the deadline of its headers", async () => {
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const { client, clock } = testClient(
      (call) => {
        const signal = call.request.signal;
        const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
        signal.addEventListener("abort", () => feed.error(signal.reason));
        return new Response(body, { headers: { "Content-Type": "application/octet-stream" } });
      },
      { timeoutMs: 1000, retry: false },
    );
    const { data, response } = await client.GET("/v1/analyses", { parseAs: "stream" });
    expect(response.status).toBe(200);
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    await clock.advance(900);
    feed.enqueue(new TextEncoder().encode("first"));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first");
    const next = reader.read().catch((e: unknown) => e);
    await clock.advance(100); // 1000 ms after the headers, although a chunk came 100 ms ago
    expect(await next).toBeInstanceOf(TimeoutError);
  });
});
