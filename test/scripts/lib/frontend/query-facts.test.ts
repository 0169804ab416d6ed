// The invalidation table is derived from the contract (its paths and x-references), not written by hand: a path or
// reference added to a document shows in the table, and the committed table is the one the contract gives.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { deriveInvalidation } from "../../../../scripts/lib/frontend/query-facts.js";
import { INVALIDATION } from "../../../../src/query/invalidation.generated.js";
import { staleKeys } from "../../../../src/query/index.js";

const ok = (schema: string) => ({ responses: { "200": { content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } } } } });
const doc = {
  paths: {
    "/v1/gadgets": { get: ok("GadgetList"), post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/GadgetCreate" } } } } } },
    "/v1/gadgets/{gadget_id}": { get: ok("Gadget"), patch: {}, delete: {} },
    "/v1/gadgets/{gadget_id}/parts": { get: ok("PartList") },
    "/v1/gadgets/{gadget_id}/polish": { post: {} },
    "/v1/gadgets/import": { post: {} },
    "/v1/widgets/{widget_id}": { get: ok("Widget") },
    "/v1/ping": { post: {} },
  },
  components: {
    schemas: {
      GadgetCreate: { type: "object", properties: { widget_ids: { type: "array", items: { type: "string", "x-references": { schema: "Widget" } } } } },
    },
  },
};

describe("deriveInvalidation", () => {
  const table = deriveInvalidation(doc);
  it("a create makes its list stale, and the items its body names (x-references)", () => {
    expect(table["POST /v1/gadgets"]).toEqual({ stale: ["/v1/gadgets"], references: [{ at: ["widget_ids", "*"], get: "/v1/widgets/{widget_id}" }] });
    expect(table["POST /v1/gadgets/import"]).toEqual({ stale: ["/v1/gadgets"] });
  });
  it("an update, a delete or an action on an item: the item, what is below it, and its list", () => {
    const item = ["/v1/gadgets/{gadget_id}", "/v1/gadgets/{gadget_id}/parts", "/v1/gadgets"];
    expect(table["PATCH /v1/gadgets/{gadget_id}"]!.stale).toEqual(item);
    expect(table["DELETE /v1/gadgets/{gadget_id}"]!.stale).toEqual(item);
    expect(table["POST /v1/gadgets/{gadget_id}/polish"]!.stale).toEqual(item);
  });
  it("a write with no GET at or above it makes nothing stale", () => {
    expect(table["POST /v1/ping"]).toBeUndefined();
  });
  it("the committed table is the bundled contract's", () => {
    expect(INVALIDATION).toEqual(deriveInvalidation(JSON.parse(fs.readFileSync("generated/openapi.json", "utf8"))));
  });
});

describe("staleKeys", () => {
  it("fills in the write's path parameters by name, and one item key per referenced id", () => {
    const facts = deriveInvalidation(doc)["POST /v1/gadgets"];
    expect(staleKeys(facts, { body: { widget_ids: ["wdg_1", "wdg_2"] } })).toEqual([
      ["get", "/v1/gadgets"],
      ["get", "/v1/widgets/{widget_id}", { params: { path: { widget_id: "wdg_1" } } }],
      ["get", "/v1/widgets/{widget_id}", { params: { path: { widget_id: "wdg_2" } } }],
    ]);
    const patch = deriveInvalidation(doc)["PATCH /v1/gadgets/{gadget_id}"];
    expect(staleKeys(patch, { params: { path: { gadget_id: "g1" } } })).toEqual([
      ["get", "/v1/gadgets/{gadget_id}", { params: { path: { gadget_id: "g1" } } }],
      ["get", "/v1/gadgets/{gadget_id}/parts", { params: { path: { gadget_id: "g1" } } }],
      ["get", "/v1/gadgets"],
    ]);
  });
});
