// x-filter (src/contract/filters.ts): each match as spec/README.md's table states it, the grammar lint checks, the defaults
// lint suggests, and the sentence generate puts in the docs.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";
import { checkFilter, defaultFilter, describeFilter, filterTest, type FilterDecl } from "../../src/contract/filters.js";

const props = {
  name: { type: "string" },
  tags: { type: "array", items: { type: "string" } },
  score: { type: "number" },
  count: { type: "integer" },
  created_at: { type: "string", format: "date-time" },
};
const keeps = (decl: FilterDecl, raw: string[], item: Record<string, unknown>) => filterTest(decl, props[decl.property as keyof typeof props], raw)(item);

describe("x-filter", () => {
  it("matches as the README's table says", () => {
    expect(keeps({ property: "name", match: "prefix" }, ["Dan"], { name: "Dana" })).toBe(true);
    expect(keeps({ property: "name", match: "prefix" }, ["dan"], { name: "Dana" })).toBe(false);
    expect(keeps({ property: "name", match: "equals" }, ["Dan"], { name: "Dana" })).toBe(false);
    expect(keeps({ property: "count", match: "equals" }, ["3"], { count: 3 })).toBe(true);
    expect(keeps({ property: "tags", match: "equals" }, ["a", "b"], { tags: ["b", "a", "c"] })).toBe(true);
    expect(keeps({ property: "tags", match: "equals" }, ["a", "z"], { tags: ["b", "a"] })).toBe(false);
    expect(keeps({ property: "name", match: "in" }, ["x,Dana", "y"], { name: "Dana" })).toBe(true);
    expect(keeps({ property: "name", match: "in" }, ["x", "y"], { name: "Dana" })).toBe(false);
    expect(keeps({ property: "score", match: "range-min" }, ["0.5"], { score: 0.5 })).toBe(true);
    expect(keeps({ property: "score", match: "range-max" }, ["0.5"], { score: 0.6 })).toBe(false);
    expect(keeps({ property: "created_at", match: "after" }, ["2026-01-01T00:00:00Z"], { created_at: "2026-01-01T00:00:00Z" })).toBe(true);
    expect(keeps({ property: "created_at", match: "before" }, ["2026-01-01T00:00:00Z"], { created_at: "2026-01-01T00:00:00Z" })).toBe(false);
  });

  it("lint's grammar: a real property of the right type, a known match, no other field", () => {
    expect(checkFilter({ property: "name", match: "prefix" }, props)).toEqual([]);
    expect(checkFilter({ property: "nom", match: "prefix" }, props).map((p) => p.path)).toEqual([["property"]]);
    expect(checkFilter({ property: "score", match: "prefix" }, props)[0]?.message).toMatch(/prefix needs a string property/);
    expect(checkFilter({ property: "name", match: "after" }, props)[0]?.message).toMatch(/after needs a date-time string property/);
    expect(checkFilter({ property: "name", match: "like" }, props)[0]?.message).toMatch(/match must be one of equals, prefix, in, range-min, range-max, after, before/);
    expect(checkFilter({ property: "name", match: "equals", case: "no" }, props)[0]?.path).toEqual(["case"]);
    expect(checkFilter("name", props)[0]?.message).toMatch(/must be an object/);
  });

  it("the naming conventions are the defaults lint states", () => {
    expect(defaultFilter("name", props)).toEqual({ property: "name", match: "equals" });
    expect(defaultFilter("created_after", props)).toEqual({ property: "created_at", match: "after" });
    expect(defaultFilter("created_before", props)).toEqual({ property: "created_at", match: "before" });
    expect(defaultFilter("min_score", props)).toEqual({ property: "score", match: "range-min" });
    expect(defaultFilter("max_count", props)).toEqual({ property: "count", match: "range-max" });
    expect(defaultFilter("window", props)).toBeUndefined();
  });

  it("generate puts the filter in the parameter's description", () => {
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, "generated/openapi.json"), "utf8"));
    const param = doc.paths["/v1/speakers"].get.parameters.find((p: { name: string }) => p.name === "name");
    expect(param.description).toContain(describeFilter({ property: "name", match: "prefix" }));
    expect(param.description).toContain("items whose `name` starts with the value");
  });
});
