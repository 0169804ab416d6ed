// The SSE stream of one analysis, described twice (decision B6): `schema` is the event with `data` parsed (what
// the typed client yields, and what /v1 has always said), `x-itemSchema` is each Server-Sent Event as OpenAPI 3.2's
// `itemSchema` models it, `data` a JSON string whose `contentSchema` is the payload a generic SSE client yields.
// The two must name the same events with the same payloads.
import { describe, expect, it } from "vitest";
import { createAjv, type Json } from "../../scripts/lib/contract.js";
import { deref, doc, inlineRefs, operation } from "../helpers/contract.js";

const media = operation("/v1/analysis/{id}/stream", "get").op.responses["200"].content["text/event-stream"];
const envelope = deref(media.schema);
const item = deref(media["x-itemSchema"]);
const ajv = createAjv();

/** event kind → the `$ref` of its payload, in each view. */
const payloadRefs = (variants: Json[], payloadOf: (v: Json) => Json) =>
  Object.fromEntries(variants.map((v) => [deref(v).properties.event.const, payloadOf(deref(v)).$ref]));

describe("SSE: /v1/analysis/{id}/stream for typed and generic clients", () => {
  it("keeps AnalysisStreamEvent as `schema` and adds AnalysisStreamItem as `x-itemSchema`", () => {
    expect(media.schema.$ref).toBe("#/components/schemas/AnalysisStreamEvent");
    expect(media["x-itemSchema"].$ref).toBe("#/components/schemas/AnalysisStreamItem");
  });

  it("both views list the same event kinds, each with the same payload schema", () => {
    const fromEnvelope = payloadRefs(envelope.oneOf, (v) => v.properties.data);
    const fromItems = payloadRefs(item.oneOf, (v) => v.properties.data.contentSchema);
    expect(Object.keys(fromEnvelope)).toEqual(["status", "transcript.segment", "signal", "alert", "completed", "error"]);
    expect(fromItems).toEqual(fromEnvelope);
    for (const v of item.oneOf) expect(deref(v).properties.data).toMatchObject({ type: "string", contentMediaType: "application/json" });
  });

  it("every example event, written as the SSE fields, is a valid item whose data JSON is a valid payload", () => {
    const validItem = ajv.compile(inlineRefs(item));
    let n = 0;
    for (const ex of Object.values<Json>(media.examples)) {
      const { event, id, data } = deref(ex).value;
      const sse = { event, id, data: JSON.stringify(data) };
      expect(validItem(sse), JSON.stringify(validItem.errors)).toBe(true);
      const variant = item.oneOf.map(deref).find((v: Json) => v.properties.event.const === event);
      const validPayload = ajv.compile(inlineRefs(variant.properties.data.contentSchema));
      expect(validPayload(JSON.parse(sse.data)), JSON.stringify(validPayload.errors)).toBe(true);
      // ...and the item view tells an envelope apart: an object in `data` is not an SSE item.
      expect(validItem({ event, id, data })).toBe(false);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(2);
  });
});

describe("WebhookEvent, the union receivers parse, is part of the contract's operations", () => {
  it("the test delivery returns the event it sends", () => {
    expect(doc.components.schemas.WebhookTestDelivery.properties.event.$ref).toBe("#/components/schemas/WebhookEvent");
    expect(doc.components.schemas.WebhookTestDelivery.required).not.toContain("event");
  });
});
