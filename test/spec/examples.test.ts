// Every request and response has a named example, and every example validates against its schema.
import { describe, expect, it } from "vitest";
import { bundleContract, collectExamples, exampleProblems } from "../../scripts/lib/contract.js";
import { deref, operations } from "../helpers/contract.js";

const dereferenced = await bundleContract(undefined, true);

describe("examples", () => {
  it("every JSON, form and event-stream body has named examples, default first for success bodies", () => {
    const bodies: Array<[string, { examples?: Record<string, unknown>; example?: unknown }]> = [];
    for (const { path, method, op } of [...operations(), ...operations("webhooks")]) {
      const rb = deref(op.requestBody);
      for (const [mt, m] of Object.entries<object>((rb?.content ?? {}) as Record<string, object>)) bodies.push([`${method} ${path} request ${mt}`, m]);
      for (const [code, r] of Object.entries(op.responses)) {
        for (const [mt, m] of Object.entries<object>(deref<{ content?: Record<string, object> }>(r).content ?? {})) bodies.push([`${method} ${path} ${code} ${mt}`, m]);
      }
    }
    expect(bodies.length).toBeGreaterThan(150);
    for (const [where, media] of bodies) {
      const names = Object.keys(media.examples ?? {});
      expect(names.length, `${where} has no named example`).toBeGreaterThan(0);
      expect(media.example, `${where} uses an unnamed example`).toBeUndefined();
      if (/ 2\d\d /.test(where)) expect(names[0], where).toBe("default");
    }
  });

  it("every example validates against its schema (ajv, JSON Schema 2020-12)", () => {
    const sites = collectExamples(dereferenced);
    expect(sites.length).toBeGreaterThan(300);
    expect(exampleProblems(dereferenced)).toEqual([]);
  });

  it("the example check catches an example that drifts from its schema", () => {
    const copy = structuredClone(dereferenced);
    const media = copy.paths["/v1/speakers/{speaker_id}"].get.responses["200"].content["application/json"];
    media.examples.default.value.enrollment_status = "half-enrolled";
    delete media.examples.default.value.name;
    const problems = exampleProblems(copy);
    expect(problems.some((p) => p.includes("/v1/speakers/{speaker_id}/get/responses/200") && p.includes("enrollment_status"))).toBe(true);
    expect(problems.some((p) => p.includes("'name'"))).toBe(true);
  });
});
