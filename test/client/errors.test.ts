import { describe, expect, expectTypeOf, it } from "vitest";
import {
  ApiError,
  RateLimitError,
  unwrap,
  ValidationError,
  type ApiErrorKind,
  type components,
} from "../../src/client/index.js";
import { API_KEY, caught, errorExamples, json, responseExample, testClient } from "./helpers.js";

const ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const KIND: Record<number, ApiErrorKind> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  422: "validation",
  429: "rate_limited",
  500: "server",
};

async function failWith(status: number, body: unknown) {
  const { client } = testClient(() => json(status, body), { retry: false, timeoutMs: 0 });
  const result = await client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: ID } } });
  const thrown = await caught(unwrap(result));
  return { result, thrown };
}

describe("error typing", () => {
  const examples = errorExamples();

  it("covers every error status of the contract", () => {
    expect([...new Set(examples.map((e) => e.status))]).toEqual([400, 401, 403, 404, 409, 422, 429, 500]);
  });

  for (const ex of examples) {
    it(`${ex.status} ${ex.name}: typed error with status, detail, method, path and the response`, async () => {
      const { result, thrown } = await failWith(ex.status, ex.body);
      expect(result.error).toEqual(ex.body); // openapi-fetch's result keeps the parsed body
      expect(thrown).toBeInstanceOf(ApiError);
      const e = thrown as ApiError;
      expect(e.status).toBe(ex.status);
      expect(e.kind).toBe(KIND[ex.status]);
      expect(e.method).toBe("GET");
      expect(e.path).toBe(`/v1/analyses/${ID}`);
      expect(e.response.status).toBe(ex.status);
      expect(e.body).toEqual(ex.body);
      expect(e.message).toContain(`GET /v1/analyses/${ID} failed with ${ex.status}`);
      expect(e.message).not.toContain(API_KEY);
      expect(JSON.stringify(e)).not.toContain(API_KEY);
      if (ex.status === 422 && Array.isArray(ex.body.detail)) {
        expect(e).toBeInstanceOf(ValidationError);
        expect((e as ValidationError).errors).toEqual(ex.body.detail);
        for (const item of ex.body.detail) expect(e.detail).toContain(`${item.loc.join(".")}: ${item.msg}`);
      } else if (ex.status === 429) {
        expect(e).toBeInstanceOf(RateLimitError);
        const r = e as RateLimitError;
        expect({ detail: r.detail, error: r.error, limit: r.limit, window: r.window, retry_after: r.retry_after }).toEqual(ex.body);
      } else {
        expect(e).not.toBeInstanceOf(ValidationError);
        expect(e).not.toBeInstanceOf(RateLimitError);
        expect(e.detail).toBe(ex.body.detail);
      }
    });
  }

  it("keeps a non-JSON error body as text and still names the request", async () => {
    const { client } = testClient(() => new Response("<html><body>502 Bad Gateway</body></html>", { status: 502, statusText: "Bad Gateway" }), {
      retry: false,
    });
    const e = (await caught(unwrap(client.GET("/v1/analyses")))) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.kind).toBe("server");
    expect(e.detail).toBe("<html><body>502 Bad Gateway</body></html>");
    expect(e.path).toBe("/v1/analyses");
  });

  it("takes Retry-After when a 429 body lacks retry_after, and never puts the query string in the path", async () => {
    const { client } = testClient(
      () => json(429, { detail: "slow down", error: "rate_limit_exceeded", limit: 30, window: "1 minute" }, { "Retry-After": "17" }),
      { retry: false },
    );
    const e = (await caught(unwrap(client.GET("/v1/analyses", { params: { query: { limit: 5 } } })))) as RateLimitError;
    expect(e.retry_after).toBe(17);
    expect(e.path).toBe("/v1/analyses");
  });

  it("unwrap returns the typed data of a 2xx result", async () => {
    const analysis = responseExample("/v1/analyses/{analysis_id}", "get", 200);
    const { client } = testClient(() => json(200, analysis));
    const data = await unwrap(client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: ID } } }));
    expectTypeOf(data).toEqualTypeOf<components["schemas"]["Analysis"]>();
    expect(data).toEqual(analysis);
  });

  it("the result's error is typed by the contract's error bodies", async () => {
    const { client } = testClient(() => json(404, { detail: "Resource not found." }));
    const { error } = await client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: ID } } });
    expectTypeOf(error).toEqualTypeOf<
      components["schemas"]["Error"] | components["schemas"]["ValidationError"] | components["schemas"]["RateLimitError"] | undefined
    >();
    expect(error).toEqual({ detail: "Resource not found." });
  });
});

describe("request ids (issue 49)", () => {
  it("an error carries the answer's X-Request-Id as requestId, null when none was sent", async () => {
    const body = { detail: "Analysis not found." };
    const { client } = testClient(() => json(404, body, { "X-Request-Id": "req_abc123" }), { retry: false, timeoutMs: 0 });
    const thrown = (await caught(unwrap(client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: ID } } })))) as ApiError;
    expect(thrown.requestId).toBe("req_abc123");
    expectTypeOf(thrown.requestId).toEqualTypeOf<string | null>();
    const { thrown: without } = await failWith(404, body);
    expect((without as ApiError).requestId).toBeNull();
  });

  it("the header it reads is the contract's", async () => {
    const { REQUEST_ID_HEADER } = await import("../../src/client/errors.js");
    const { doc } = await import("../helpers/contract.js");
    expect(REQUEST_ID_HEADER).toBe(doc["x-request-id"].header);
  });
});
