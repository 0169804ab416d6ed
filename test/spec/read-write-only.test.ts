// VG1 (docs/decisions/contract.md): readOnly and writeOnly are annotations in this contract. The side a schema serves
// is in its name (`<Thing>Create`/`<Thing>Update` are sent, `<Thing>` is answered), so every reader can take
// `required` literally: the mock and verify validate with ajv (no side-dependent reading), openapi-typescript marks a
// readOnly property `readonly` and keeps it required, the Python generator ignores both keywords. What would make
// them disagree, a request schema requiring a readOnly property, is refused by lint (policy/readonly-in-request,
// planted in test/scripts/author-lint.test.ts).
import { describe, expect, it } from "vitest";
import { componentSchemaId, createContractAjv } from "../../src/mock/core/contract/validation.js";
import { deref, operations } from "../helpers/contract.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Every request body schema of the contract (JSON or form), resolved. */
function requestSchemas(): Json[] {
  return operations().flatMap(({ op }) => Object.values<Json>(deref(op.requestBody)?.content ?? {}).map((m) => deref(m.schema)).filter(Boolean));
}

describe("readOnly and writeOnly are read the same way by every tool (VG1)", () => {
  it("ajv, which the mock and verify validate with, reads `required` literally: a required readOnly field is required in a request", () => {
    const ajv = createContractAjv({ doc: { components: { schemas: { T: { type: "object", required: ["id"], properties: { id: { type: "string", readOnly: true } } } } } } } as never, false);
    const validate = ajv.getSchema(componentSchemaId("T"))!;
    expect(validate({})).toBe(false);
    expect(validate({ id: "x" })).toBe(true);
  });

  it("so no request schema of the contract requires a readOnly property", () => {
    const schemas = requestSchemas();
    expect(schemas.length).toBeGreaterThan(10);
    const bad = schemas.flatMap((s) => (s.required ?? []).filter((k: string) => deref(s.properties?.[k])?.readOnly));
    expect(bad).toEqual([]);
  });

  it("and openapi-typescript keeps readOnly properties required in the generated types (no read/write markers)", async () => {
    const { readFile } = await import("node:fs/promises");
    const config = await readFile(new URL("../../scripts/contract/generate.ts", import.meta.url), "utf8");
    expect(config).not.toMatch(/readWriteMarkers:\s*true/);
  });
});
