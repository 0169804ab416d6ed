// The score's "undescribed" list blames only what the change under review added: the shared schemas (error bodies of
// the shared responses) are described in spec/, and a new operation is not blamed for a property already undescribed
// in the base contract (a schema it reuses).
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATED } from "../../../../scripts/lib/paths.js";
import { changeHotspots, undescribed, type ScoreReport } from "../../../../scripts/lib/diff/score-diff.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const bundle = async (): Promise<Json> => JSON.parse(await fs.readFile(path.join(GENERATED, "openapi.json"), "utf8"));
const METHODS = ["get", "put", "post", "delete", "patch"];

/** The schema names reached from the shared responses (components/responses), through $refs. */
function sharedSchemas(doc: Json): Set<string> {
  const out = new Set<string>();
  const visit = (n: Json): void => {
    if (!n || typeof n !== "object") return;
    if (typeof n.$ref === "string" && n.$ref.startsWith("#/components/schemas/")) {
      const name = n.$ref.split("/").pop()!;
      if (out.has(name)) return;
      out.add(name);
      visit(doc.components.schemas[name]);
    }
    for (const v of Object.values(n)) visit(v);
  };
  visit(doc.components.responses);
  return out;
}

describe("the score's undescribed list", () => {
  it("no property of a schema the shared responses use is undescribed (ValidationError, RateLimit*)", async () => {
    const doc = await bundle();
    const shared = sharedSchemas(doc);
    expect(shared.has("ValidationError") && shared.has("RateLimitMinuteError")).toBe(true);
    const bare = new Set<string>();
    for (const item of Object.values<Json>(doc.paths)) {
      for (const m of METHODS) if (item[m]) for (const n of undescribed(doc, item[m])) if (shared.has(n.split(".")[0]!)) bare.add(n);
    }
    expect([...bare]).toEqual([]);
  });

  it("no operation of today's contract reaches an undescribed property (a variant restating its parent's fields adds none)", async () => {
    const doc = await bundle();
    const bare = new Set<string>();
    for (const item of Object.values<Json>(doc.paths)) for (const m of METHODS) if (item[m]) for (const n of undescribed(doc, item[m])) bare.add(n);
    expect([...bare]).toEqual([]);
  });

  it("a new operation is blamed for the properties it added, not for those the base already left undescribed", async () => {
    const base = await bundle();
    const head: Json = structuredClone(base);
    const analysis = Object.entries<Json>(base.components.schemas.Analysis.properties).find(([, s]) => !s.description)?.[0];
    expect(analysis, "an undescribed Analysis property in the base").toBeDefined();
    head.components.schemas.Comment = { type: "object", properties: { body: { type: "string" }, analysis: { $ref: "#/components/schemas/Analysis" } } };
    head.paths["/v1/comments"] = { get: { operationId: "listComments", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Comment" } } } } } } };
    const report = (ops: Record<string, number>): ScoreReport => ({ agentReadiness: 90, operationScores: Object.fromEntries(Object.entries(ops).map(([k, v]) => [k, { agentReadiness: v }])) }) as unknown as ScoreReport;
    const [hot] = changeHotspots(report({}), report({ listComments: 70 }), { base, head });
    const names = hot!.reasons.find((r) => r.startsWith("undescribed: "));
    expect(names).toBe("undescribed: Comment.body");
  });
});
