// The client writes a few names of the contract down as constants (so the browser bundle needs no contract
// at run time). These tests hold each one to the bundled contract, generated/openapi.json.
import { describe, expect, it } from "vitest";
import {
  ANALYSIS_STREAM_EVENT_KINDS,
  API_KEY_HEADER,
  AUTHORIZATION_HEADER,
  RATE_LIMIT_HEADERS,
  TOKEN_QUERY_PARAM,
  WEBHOOK_HEADERS,
  WEBHOOK_TOLERANCE_SECONDS,
} from "../../src/client/index.js";
import { deref, doc } from "./helpers.js";

describe("names taken from the contract", () => {
  it("credentials: X-API-Key, Authorization Bearer, the token query parameter", () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.ApiKeyAuth).toMatchObject({ type: "apiKey", in: "header", name: API_KEY_HEADER });
    expect(schemes.BearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(AUTHORIZATION_HEADER).toBe("Authorization");
    expect(schemes.TokenQuery).toMatchObject({ type: "apiKey", in: "query", name: TOKEN_QUERY_PARAM });
  });

  it("rate-limit headers: the policy's map", () => {
    expect(RATE_LIMIT_HEADERS).toEqual(doc["x-rate-limit-policy"].headers);
  });

  it("webhook headers and tolerance", () => {
    const p = doc.components.parameters;
    expect(WEBHOOK_HEADERS).toEqual({ id: p.WebhookIdHeader.name, timestamp: p.WebhookTimestampHeader.name, signature: p.WebhookSignatureHeader.name });
    expect(p.WebhookTimestampHeader.description).toContain(`more than ${WEBHOOK_TOLERANCE_SECONDS} seconds`);
  });

  it("the SSE event kinds: the AnalysisStreamEvent discriminator", () => {
    const union = deref(doc.components.schemas.AnalysisStreamEvent);
    expect(union.discriminator.propertyName).toBe("event");
    expect([...ANALYSIS_STREAM_EVENT_KINDS].sort()).toEqual(Object.keys(union.discriminator.mapping).sort());
  });

  it("the operations the helpers call exist with the parameters they send", () => {
    const sse = doc.paths["/v1/analysis/{id}/stream"].get;
    const sseParams = [...doc.paths["/v1/analysis/{id}/stream"].parameters, ...sse.parameters].map((x: unknown) => deref(x));
    expect(sseParams.map((x: { name: string; in: string }) => `${x.in}:${x.name}`).sort()).toEqual(["header:Last-Event-ID", "path:id"]);
    expect(Object.keys(sse.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(Object.keys(doc.paths["/v1/analysis/stream-upload"].post.requestBody.content)).toEqual(["application/octet-stream"]);
  });
});
