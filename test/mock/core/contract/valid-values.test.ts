// The fuzz suite's valid requests (test/helpers/robustness/cases.ts) take a parameter's examples, else its pattern, else
// a value made from its schema: a `created_after` without an example gets an RFC 3339 time, not `x` (which the mock
// rightly answers 422, so a "valid" case failed). Every value made for each kind of schema validates against it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { componentSchemaId, createContractAjv } from "../../../../src/mock/core/contract/validation.js";
import { fromSchema } from "../../../helpers/robustness/cases.js";

const SCHEMAS = {
  DateTime: { type: "string", format: "date-time", maxLength: 35 },
  Date: { type: "string", format: "date", maxLength: 10 },
  Email: { type: "string", format: "email", maxLength: 254 },
  Uri: { type: "string", format: "uri", maxLength: 2048 },
  Uuid: { type: "string", format: "uuid", maxLength: 36 },
  Bounded: { type: "integer", minimum: 5, maximum: 9 },
  Ratio: { type: "number", minimum: 0, maximum: 1 },
  Flag: { type: "boolean" },
  Short: { type: "string", minLength: 3, maxLength: 5 },
  Nullable: { type: ["string", "null"], format: "date-time", maxLength: 35 },
};

describe("valid values from a schema without examples", () => {
  const ajv = createContractAjv({ doc: { components: { schemas: SCHEMAS } } } as never, false);
  for (const name of Object.keys(SCHEMAS)) {
    it(`${name}: every value made validates`, () => {
      const validate = ajv.getSchema(componentSchemaId(name))!;
      fc.assert(fc.property(fromSchema(SCHEMAS[name as keyof typeof SCHEMAS]), (v) => validate(v) === true), { numRuns: 100 });
    });
  }
  it("a date-time is a time, not a placeholder", () => {
    expect(fc.sample(fromSchema(SCHEMAS.DateTime), 5).every((v) => !Number.isNaN(Date.parse(String(v))))).toBe(true);
  });
});
