// The zod schemas of `@avt/api-contract/zod` (src/zod/schemas.generated.ts, written by `npm run generate` from the
// contract; scripts/lib/frontend/zod.ts): every example the contract's components carry parses with its schema, and
// a wrong value fails with the path of the problem (issue 45, finding 3).
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import doc from "../../generated/openapi.json" with { type: "json" };
import * as Z from "../../src/zod/index.js";
import { RESPONSES, ResponseValidationError, validateResponse } from "../../src/zod/index.js";

type Obj = Record<string, any>;
const components = doc.components as Obj;
const schemas = Z as unknown as Record<string, ZodType>;
const clone = <T>(v: T): T => structuredClone(v);

describe("the generated schemas", () => {
  it("are one named export per component schema", () => {
    expect(Object.keys(components.schemas).filter((n) => !(n in schemas))).toEqual([]);
  });

  it("parse every example of every component schema", () => {
    let checked = 0;
    for (const [name, schema] of Object.entries(components.schemas as Obj)) {
      for (const example of (schema.examples ?? []) as unknown[]) {
        const r = schemas[name]!.safeParse(example);
        expect(r.success, `${name}: ${JSON.stringify(r.error?.issues[0])}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it("parse every named example of components/examples with the schema of its name (Analysis, AnalysisCreate, ...)", () => {
    const named = Object.entries(components.examples as Obj).filter(([name]) => name in components.schemas);
    for (const [name, ex] of named) {
      const r = schemas[name]!.safeParse(ex.value);
      expect(r.success, `${name}: ${JSON.stringify(r.error?.issues[0])}`).toBe(true);
    }
    expect(named.length).toBeGreaterThan(50);
  });

  it("parse every response example the components give an operation (components/examples through the responses)", () => {
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Obj)) {
      for (const [method, op] of Object.entries(item as Obj)) {
        for (const [status, r] of Object.entries((op?.responses ?? {}) as Obj)) {
          const response = r.$ref ? components.responses[r.$ref.split("/").pop()] : r;
          const media = response.content?.["application/json"];
          for (const ex of Object.values((media?.examples ?? {}) as Obj)) {
            const value = ex.$ref ? components.examples[ex.$ref.split("/").pop()].value : ex.value;
            expect(() => validateResponse(method, path, Number(status), value)).not.toThrow();
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("refuse a wrong value with the path of the problem", () => {
    const analysis = clone(components.examples.Analysis.value);
    analysis.status = "exploded";
    expect(Z.Analysis.safeParse(analysis).error?.issues[0]?.path).toEqual(["status"]);
    const list = clone(components.examples.AnalysisList.value);
    list.data[0].id = "not-an-id";
    expect(Z.AnalysisList.safeParse(list).error?.issues[0]?.path).toEqual(["data", 0, "id"]);
    const missing = clone(components.examples.Analysis.value);
    delete missing.created_at;
    expect(Z.Analysis.safeParse(missing).error?.issues[0]?.path).toEqual(["created_at"]);
    expect(Z.Metadata.safeParse({ ["k".repeat(65)]: "v" }).success).toBe(false);
    expect(Z.Metadata.safeParse({ k: "v" }).success).toBe(true);
  });

  it("refuse what the contract refuses: a closed object's extra property, a second equal item, a bad format", () => {
    const analysis = clone(components.examples.Analysis.value);
    expect(Z.Analysis.safeParse({ ...analysis, error: { code: "x", message: "m", extra: 1 } }).success).toBe(false);
    expect(Z.Analysis.safeParse({ ...analysis, features: ["transcription", "transcription"] }).success).toBe(false);
    expect(Z.Analysis.safeParse({ ...analysis, created_at: "yesterday" }).error?.issues[0]?.path).toEqual(["created_at"]);
  });
});

describe("validateResponse", () => {
  it("names the operation and the JSON path of the first problem", () => {
    const list = clone(components.examples.AnalysisList.value);
    list.data[0].progress = 101;
    let error: unknown;
    try {
      validateResponse("GET", "/v1/analyses", 200, list);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ operationId: "listAnalyses", status: 200, path: ["data", 0, "progress"], pointer: "/data/0/progress" });
    expect((error as Error).message).toMatch(/^listAnalyses: the 200 response's body does not match the contract at \/data\/0\/progress: /);
  });

  it("checks every operation's JSON responses, and passes what the contract gives no JSON body", () => {
    expect(Object.keys(RESPONSES).length).toBeGreaterThan(90);
    expect(RESPONSES["GET /v1/analyses/{analysis_id}"]?.[0]).toBe("getAnalysis");
    expect(() => validateResponse("GET", "/v1/analyses/{analysis_id}", 404, { nope: true })).toThrow(ResponseValidationError);
    expect(() => validateResponse("GET", "/not/in/the/contract", 200, 1)).not.toThrow();
    expect(() => validateResponse("DELETE", "/v1/analyses/{analysis_id}", 204, undefined)).not.toThrow();
  });
});
