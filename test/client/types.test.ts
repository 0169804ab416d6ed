// Type-level tests: `tsc --noEmit` (which covers test/) fails if a `@ts-expect-error` line compiles, so each
// of them proves that the mistake it makes is caught at compile time. Nothing here sends a request.
import { describe, expectTypeOf, it } from "vitest";
import type { AnalysisStreamEvent, ApiClient, components, ListItem, ListPath, RateLimit, WebSocketPath } from "../../src/client/index.js";
import { paginate } from "../../src/client/pagination.js";
import { streamAnalysisEvents } from "../../src/client/streaming.js";
import { openWebSocket } from "../../src/client/websocket.js";

type Schemas = components["schemas"];

/** Never called: only compiled. */
async function calls(client: ApiClient) {
  // ---- paths --------------------------------------------------------------------------------------------
  // @ts-expect-error: no such path
  await client.GET("/v1/analysez", {});
  // @ts-expect-error: /v1/analyses has no DELETE
  await client.DELETE("/v1/analyses", {});
  // @ts-expect-error: the path template, not a filled-in path
  await client.GET("/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0", {});

  // ---- parameters ---------------------------------------------------------------------------------------
  await client.GET("/v1/analyses", { params: { query: { limit: 10, status: "completed" } } });
  // @ts-expect-error: limit is an integer
  await client.GET("/v1/analyses", { params: { query: { limit: "ten" } } });
  // @ts-expect-error: status is a closed enum
  await client.GET("/v1/analyses", { params: { query: { status: "done" } } });
  // @ts-expect-error: no such query parameter
  await client.GET("/v1/analyses", { params: { query: { colour: "red" } } });
  // @ts-expect-error: the path parameter is required
  await client.GET("/v1/analyses/{analysis_id}", {});
  // @ts-expect-error: the path parameter is named analysis_id
  await client.GET("/v1/analyses/{analysis_id}", { params: { path: { id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" } } });

  // ---- bodies -------------------------------------------------------------------------------------------
  await client.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.wav", media_type: "audio" } });
  // @ts-expect-error: the body is required
  await client.POST("/v1/analyses", {});
  // @ts-expect-error: media_type is a closed enum
  await client.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.wav", media_type: "podcast" } });
  // @ts-expect-error: media_type is required
  await client.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.wav" } });
  // AnalysisCreate is a union (issue 31): exactly one of media_url and text, text without media-only features, https only.
  await client.POST("/v1/analyses", { body: { text: "Customer: the price went up.", media_type: "text", features: ["transcription", "summary"] } });
  // @ts-expect-error: media_url and text are mutually exclusive
  await client.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.wav", text: "hello", media_type: "text" } });
  // @ts-expect-error: diarization is not available for text
  await client.POST("/v1/analyses", { body: { text: "hello", media_type: "text", features: ["transcription", "diarization"] } });
  // @ts-expect-error: media_url is HTTPS only (pattern ^https://)
  await client.POST("/v1/analyses", { body: { media_url: "http://media.example.com/a.wav", media_type: "audio" } });
  // @ts-expect-error: inline text needs media_type text
  await client.POST("/v1/analyses", { body: { text: "hello", media_type: "audio" } });
  // @ts-expect-error: one of media_url and text is required
  await client.POST("/v1/analyses", { body: { media_type: "audio" } });

  // ---- responses ----------------------------------------------------------------------------------------
  const { data, error } = await client.GET("/v1/analyses");
  expectTypeOf(data).toEqualTypeOf<Schemas["AnalysisList"] | undefined>();
  expectTypeOf(error).toEqualTypeOf<Schemas["Error"] | Schemas["ValidationError"] | Schemas["RateLimitError"] | undefined>();

  // ---- per-call options ---------------------------------------------------------------------------------
  await client.GET("/v1/analyses", { timeoutMs: 5000, retry: { maxAttempts: 2 } });
  await client.GET("/v1/analyses", { retry: false });
  // @ts-expect-error: timeoutMs is a number of milliseconds
  await client.GET("/v1/analyses", { timeoutMs: "5s" });
  // @ts-expect-error: no such retry option
  await client.GET("/v1/analyses", { retry: { attempts: 2 } });

  // ---- pagination ---------------------------------------------------------------------------------------
  for await (const a of paginate(client, "/v1/analyses", { params: { query: { status: "failed" } } })) {
    expectTypeOf(a).toEqualTypeOf<Schemas["Analysis"]>();
  }
  // @ts-expect-error: not a list operation
  paginate(client, "/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" } } });
  // @ts-expect-error: a list with a path parameter needs it
  paginate(client, "/v1/analyses/{analysis_id}/signals", {});
  // @ts-expect-error: wrong query parameter type for this list
  paginate(client, "/v1/analyses", { params: { query: { limit: "all" } } });

  // ---- streaming ----------------------------------------------------------------------------------------
  for await (const e of streamAnalysisEvents(client, "anl_01HZX4A9B7C5D3E1F2G4H6J8K0")) {
    expectTypeOf(e).toEqualTypeOf<AnalysisStreamEvent>();
    if (e.event === "transcript.segment") expectTypeOf(e.data).toEqualTypeOf<Schemas["TranscriptSegment"]>();
  }
  await openWebSocket(client, "/v1/stream", { params: { query: { encoding: "opus" } } });
  await openWebSocket(client, "/v1/stream");
  // @ts-expect-error: not a WebSocket operation
  await openWebSocket(client, "/v1/analyses", {});
  // @ts-expect-error: encoding is a closed enum
  await openWebSocket(client, "/v1/stream", { params: { query: { encoding: "mp3" } } });
  // @ts-expect-error: /ws/analyses/{analysis_id} needs its path parameter
  await openWebSocket(client, "/ws/analyses/{analysis_id}", {});

  // ---- uploads ------------------------------------------------------------------------------------------
  // @ts-expect-error: media_type is required
  await client.streamUpload({ query: {}, body: new Uint8Array(1) });
}

describe("types", () => {
  it("derive list, item and WebSocket paths from the contract", () => {
    void calls;
    expectTypeOf<"/v1/analyses">().toExtend<ListPath>();
    expectTypeOf<"/v1/speakers">().toExtend<ListPath>();
    expectTypeOf<"/v1/analyses/{analysis_id}">().not.toExtend<ListPath>();
    expectTypeOf<"/v1/health">().not.toExtend<ListPath>();
    expectTypeOf<ListItem<"/v1/speakers">>().toEqualTypeOf<Schemas["Speaker"]>();
    expectTypeOf<WebSocketPath>().toEqualTypeOf<"/v1/stream" | "/ws/analyses/{analysis_id}">();
    expectTypeOf<RateLimit["limit"]>().toEqualTypeOf<number>();
  });
});
