// Section 7 (errors) of the interface specification.
import { describe, expect, it } from "vitest";
import { section, table, tables } from "../helpers/spec-doc.js";
import { createAjv } from "../../scripts/lib/contract.js";
import { deref, doc, inlineRefs, operations, PUBLIC_PATHS } from "../helpers/contract.js";

const COMPONENT_FOR: Record<string, string> = {
  "400": "BadRequest",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "NotFound",
  "409": "Conflict",
  "422": "UnprocessableEntity",
  "429": "TooManyRequests",
  "500": "InternalServerError",
};
const norm = (s: string) => s.toLowerCase().replace(/[`.,;()]/g, " ").replace(/\s+/g, " ").trim();
const ajv = createAjv();
const schemaOf = (response: string) => deref(doc.components.responses[response]).content["application/json"].schema;
const validator = (response: string) => ajv.compile(inlineRefs(schemaOf(response)));

describe("section 7: statuses and their meanings", () => {
  const rows = table("7. Errors");
  it("the table lists the eight statuses", () => expect(rows.map((r) => r["Status"])).toEqual(Object.keys(COMPONENT_FOR)));

  for (const row of rows) {
    const status = row["Status"]!;
    it(`${status}: one shared response component, described as the specification means it`, () => {
      const name = COMPONENT_FOR[status]!;
      const response = deref(doc.components.responses[name]);
      expect(response, `components.responses.${name}`).toBeDefined();
      // The meaning's first clause ("Rate limit exceeded", "Valid credentials, insufficient permission") is in the description.
      const clause = norm(row["Meaning"]!.split(/;|\(/)[0]!);
      expect(norm(response.description)).toContain(clause);
      // Each status has a named example.
      expect(Object.keys(response.content["application/json"].examples).length).toBeGreaterThan(0);
      // Every operation that documents this status references the one shared component.
      for (const { op } of operations()) {
        const r = op.responses[status];
        if (r) expect(r.$ref, `${op.operationId} ${status}`).toBe(`#/components/responses/${name}`);
      }
    });
  }

  it("every secured operation documents 400, 401, 403, 429 and 500 (400: the gateway refuses a body it does not take, G21)", () => {
    for (const { path, op } of operations()) {
      if (PUBLIC_PATHS.includes(path)) continue;
      for (const s of ["400", "401", "403", "429", "500"]) expect(op.responses[s], `${op.operationId} ${s}`).toBeDefined();
    }
  });

  it("operations with a body or query parameters document 422; operations with a path id document 404", () => {
    for (const o of operations()) {
      if (PUBLIC_PATHS.includes(o.path)) continue;
      const params = [...(o.item.parameters ?? []), ...(o.op.parameters ?? [])].map((p) => deref(p));
      if (o.op.requestBody || params.some((p) => p.in === "query" && p.name !== "token")) {
        expect(o.op.responses["422"], `${o.op.operationId} 422`).toBeDefined();
      }
      if (params.some((p) => p.in === "path")) expect(o.op.responses["404"], `${o.op.operationId} 404`).toBeDefined();
    }
  });
});

describe("section 7: error bodies", () => {
  it("an error body is JSON with a string detail", () => {
    const v = validator("NotFound");
    expect(v({ detail: "Analysis not found." })).toBe(true);
    expect(v({})).toBe(false);
    expect(v({ detail: 42 })).toBe(false);
    for (const name of ["BadRequest", "Unauthorized", "Forbidden", "NotFound", "Conflict", "InternalServerError"]) {
      expect(deref(schemaOf(name)).properties.detail.type, name).toBe("string");
    }
  });

  it("a 422 carries a detail array, one item per invalid field", () => {
    const v = validator("UnprocessableEntity");
    expect(v({ detail: [{ loc: ["body", "name"], msg: "is required", type: "required" }] })).toBe(true);
    expect(v({ detail: [{ loc: ["body", "items", 0], msg: "must be string", type: "type" }] })).toBe(true);
    // A string detail is the 422 that is not a validation failure, with its `error` code (decision ID1).
    expect(v({ detail: "The Idempotency-Key k was used with another request.", error: "idempotency_key_reused" })).toBe(true);
    expect(v({ detail: "name is required", error: "some_other_code" })).toBe(false);
    expect(v({ detail: [] })).toBe(false);
    expect(v({ detail: [{ msg: "no location" }] })).toBe(false);
  });

  describe("the 429 body", () => {
    const rows = tables(section("Rate-limit error body (429)"))[0]!;
    const v = validator("TooManyRequests");
    const minute = { detail: "Rate limit of 150 requests per minute exceeded.", error: "rate_limit_exceeded", limit: 150, window: "1 minute", retry_after: 42 };
    const daily = { detail: "Daily limit of 10000 requests exceeded.", error: "daily_limit_exceeded", limit: 10000, window: "1 day", retry_after: 3600 };

    it("has exactly the documented fields with their types, all required", () => {
      for (const variant of deref(schemaOf("TooManyRequests")).oneOf.map((s: unknown) => deref(s))) {
        expect(Object.keys(variant.properties).sort()).toEqual(rows.map((r) => r["Field"]!.replace(/`/g, "")).sort());
        for (const row of rows) {
          const field = row["Field"]!.replace(/`/g, "");
          expect(variant.properties[field].type, field).toBe(row["Type"]);
        }
        expect(variant.required.sort()).toEqual(Object.keys(variant.properties).sort());
      }
    });

    it("distinguishes the per-minute and the daily variant", () => {
      expect(v(minute)).toBe(true);
      expect(v(daily)).toBe(true);
      expect(v({ ...minute, window: "1 day" })).toBe(false);
      expect(v({ ...daily, window: "1 minute" })).toBe(false);
      expect(v({ ...minute, error: "too_many" })).toBe(false);
      expect(v({ ...minute, retry_after: "42" })).toBe(false);
      const { retry_after: _omit, ...missing } = minute;
      expect(v(missing)).toBe(false);
    });

    it("comes with a Retry-After header and named examples of both variants", () => {
      const r = deref(doc.components.responses.TooManyRequests);
      expect(Object.keys(r.headers)).toContain("Retry-After");
      const ex = r.content["application/json"].examples;
      expect(Object.values<{ value: { error: string } }>(ex).map((e) => e.value.error).sort()).toEqual(["daily_limit_exceeded", "rate_limit_exceeded"]);
    });
  });
});

describe("422 messages are words a form can show (decision B5)", () => {
  /** JSON Schema's own wording, which means nothing to the person filling in the form. */
  const JARGON = /boolean schema|must (NOT )?have|must match (pattern|format)|must be (>=|<=|>|<|equal)|must NOT|should be|additional propert|schema is false/i;
  const items: Array<{ where: string; loc: Array<string | number>; msg: string }> = [];
  const collect = (where: string, value: unknown) => {
    // A string detail is the 422 that is not a validation failure (idempotency_key_reused, decision ID1).
    const detail = (value as { detail?: Array<{ loc: Array<string | number>; msg: string }> | string }).detail;
    for (const item of Array.isArray(detail) ? detail : []) items.push({ where, ...item });
  };
  for (const [name, ex] of Object.entries<{ value: unknown }>(doc.components.responses.UnprocessableEntity.content["application/json"].examples)) collect(name, ex.value);
  for (const msg of deref(doc.components.schemas.ValidationErrorItem).properties.msg.examples) items.push({ where: "ValidationErrorItem.msg", loc: ["body", "rate_limit_rpm"], msg });

  it("there are examples to judge", () => expect(items.length).toBeGreaterThanOrEqual(4));
  for (const { where, loc, msg } of items) {
    it(`${where}: "${msg}" is one sentence, names its field in backticks and avoids JSON Schema wording`, () => {
      const field = [...loc].reverse().find((x) => typeof x === "string");
      expect(msg).toMatch(/^`[^`]+` [^\n]+\.$/);
      expect(msg).toContain(`\`${field}\``);
      expect(msg).not.toMatch(JARGON);
    });
  }
  it("the jargon check catches the old wording", () => {
    for (const old of ["must have required property 'name'", "must be >= 1", "boolean schema is false", "must NOT have additional properties"]) expect(old).toMatch(JARGON);
  });
});
