// The browser simulation's compact contract (scripts/lib/sim-contract.ts, decision MC11): the prose goes, what the
// simulation reads stays. That it answers like the whole contract is parity.test.ts's browser case.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderSimulationDocument, simulationDocument } from "../../../scripts/lib/sim-contract.js";
import { ROOT } from "../../../scripts/lib/paths.js";

const DOC = {
  openapi: "3.1.0",
  info: { title: "T", version: "1", description: "Long prose." },
  tags: [{ name: "a", description: "Group a." }],
  externalDocs: { url: "https://example.com" },
  paths: {
    "/x": {
      summary: "Path summary",
      get: {
        operationId: "getX",
        summary: "Get x",
        description: "Gets x.",
        tags: ["a"],
        responses: {
          "200": {
            description: "OK",
            content: { "application/json": { schema: { $ref: "#/components/schemas/X" }, examples: { one: { summary: "One", value: { description: "data", summary: "data too" } } } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      X: {
        type: "object",
        description: "An x.",
        examples: [{ description: "an example's field" }],
        properties: { description: { type: "string", description: "The x's description.", default: "d" }, summary: { type: "string" } },
        dependentSchemas: { a: { if: { required: ["a"] }, then: false, "x-status": 400, description: "`a` is refused: 400." } },
        "x-note": { description: "an extension's value" },
      },
    },
  },
};

describe("the simulation's compact contract", () => {
  it("drops descriptions, summaries, externalDocs and the tags list", () => {
    const t = JSON.stringify(simulationDocument(DOC));
    for (const prose of ["Long prose.", "Group a.", "Path summary", "Get x", "Gets x.", '"OK"', '"One"', "An x.", "The x's description.", "example.com"]) expect(t).not.toContain(prose);
    expect((simulationDocument(DOC) as typeof DOC).paths["/x"].get.tags).toEqual(["a"]);
  });

  it("keeps values, extensions, fields named description, and an x-status rule's description", () => {
    const d = simulationDocument(DOC) as typeof DOC;
    const x = d.components.schemas.X;
    expect(x.properties).toEqual({ description: { type: "string", default: "d" }, summary: { type: "string" } });
    expect(x.examples).toEqual([{ description: "an example's field" }]);
    expect(x["x-note"]).toEqual({ description: "an extension's value" });
    expect(x.dependentSchemas.a.description).toBe("`a` is refused: 400.");
    expect(d.paths["/x"].get.responses["200"].content["application/json"].examples.one).toEqual({ value: { description: "data", summary: "data too" } });
    expect(d.info).toEqual({ title: "T", version: "1" });
  });

  it("is generated/openapi.sim.json, made from generated/openapi.json, and less than half its gzip size", async () => {
    const json = fs.readFileSync(path.join(ROOT, "generated/openapi.json"), "utf8");
    const sim = fs.readFileSync(path.join(ROOT, "generated/openapi.sim.json"), "utf8");
    expect(sim).toBe(renderSimulationDocument(JSON.parse(json)));
    const { gzipSync } = await import("node:zlib");
    expect(gzipSync(sim).length).toBeLessThan(gzipSync(json).length / 2);
  });
});
