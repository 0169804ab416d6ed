// Bounded input (OWASP API4, unrestricted resource consumption): every value a request can carry — path, query,
// header and cookie parameters, and every request body media type, through $ref, properties, items, oneOf/anyOf/
// allOf variants, map values and conditional subschemas — has an upper bound, so that the next endpoint cannot
// forget one. A 200,000-item `features` with `uniqueItems` once held the gateway for 76 s (quadratic validation).
import { describe, expect, it } from "vitest";
import { createAjv, type Json } from "../../scripts/lib/contract.js";
import { makeDeref } from "../../src/mock/core/contract/contract-build.js";
import { doc, inlineRefs } from "../helpers/contract.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
/** Subschemas a value can be validated against (`not` only rejects, so it bounds nothing). */
const SUBSCHEMA_LISTS = ["oneOf", "anyOf", "allOf", "prefixItems"];
const SUBSCHEMAS = ["items", "additionalProperties", "contains", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"];

const has = (s: Json, ...keys: string[]) => keys.some((k) => s[k] !== undefined);
const typesOf = (s: Json): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * What a schema node lacks: a length bound for strings (maxLength; `format` and `pattern` do not bound length:
 * ajv's date-time takes any number of fraction digits), maxItems for arrays, a minimum and a maximum for numbers,
 * maxProperties for open maps. `enum` and `const` bound everything.
 */
function missingBounds(s: Json): string[] {
  if (has(s, "enum", "const")) return [];
  const types = typesOf(s);
  const out: string[] = [];
  if (types.includes("string") && !has(s, "maxLength")) out.push("string without maxLength");
  if (types.includes("array") && !has(s, "maxItems")) out.push("array without maxItems");
  if (types.includes("integer") || types.includes("number")) {
    if (!has(s, "minimum", "exclusiveMinimum")) out.push(`${types.includes("integer") ? "integer" : "number"} without minimum`);
    if (!has(s, "maximum", "exclusiveMaximum")) out.push(`${types.includes("integer") ? "integer" : "number"} without maximum`);
  }
  const openMap = (s.additionalProperties !== undefined && s.additionalProperties !== false) || s.patternProperties !== undefined;
  if (types.includes("object") && openMap && !has(s, "maxProperties")) out.push("open object without maxProperties");
  return out;
}

/** Every unbounded node reachable from a request input, as `where: what`. */
function unboundedInputs(d: Json): string[] {
  const deref = makeDeref(d);
  const found: string[] = [];
  const walk = (node: Json, where: string, seen: Set<Json>): void => {
    if (!node || typeof node !== "object") return;
    const s = deref(node);
    if (!s || typeof s !== "object" || seen.has(s)) return;
    const inner = new Set(seen).add(s);
    for (const what of missingBounds(s)) found.push(`${where}: ${what}`);
    for (const k of SUBSCHEMAS) if (s[k] && typeof s[k] === "object") walk(s[k], `${where}/${k}`, inner);
    for (const k of SUBSCHEMA_LISTS) for (const [i, v] of (s[k] ?? []).entries()) walk(v, `${where}/${k}/${i}`, inner);
    for (const k of SUBSCHEMA_MAPS) for (const [name, v] of Object.entries<Json>(s[k] ?? {})) walk(v, `${where}/${k}/${name}`, inner);
  };
  for (const [path, rawItem] of Object.entries<Json>(d.paths ?? {})) {
    const item = deref(rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref)) walk(p.schema, `${at} ${p.in} parameter ${p.name}`, new Set());
      for (const [mt, media] of Object.entries<Json>(deref(op.requestBody)?.content ?? {})) walk(media.schema, `${at} body (${mt})`, new Set());
    }
  }
  return [...new Set(found)];
}

const schemas = doc.components.schemas;

describe("bounded input: every request value has an upper bound", () => {
  it("no string, array, number or open map in any request input is unbounded", () => {
    expect(unboundedInputs(doc)).toEqual([]);
  });

  it("the walk reaches parameters, bodies, oneOf variants and array items (it finds a bound removed from each)", () => {
    const plant = (edit: (d: Json) => void) => {
      const d = structuredClone(doc);
      edit(d);
      return unboundedInputs(d);
    };
    const s = (d: Json) => d.components.schemas;
    expect(plant((d) => delete s(d).ApiKeyCreate.properties.rate_limit_rpm.maximum)).toEqual([
      "POST /v1/keys body (application/json)/properties/rate_limit_rpm: integer without maximum",
    ]);
    expect(plant((d) => delete s(d).AnalysisCreate.properties.features.maxItems)).toEqual([
      "POST /v1/analyses body (application/json)/properties/features: array without maxItems",
    ]);
    expect(plant((d) => delete s(d).ApiKeyCreate.properties.expires_at.maxLength)).toEqual([
      "POST /v1/keys body (application/json)/properties/expires_at: string without maxLength",
    ]);
    // In a oneOf variant (the agent trigger), reached from two operations.
    expect(plant((d) => delete s(d).AgentEventTrigger.properties.event_types.maxItems)).toEqual([
      "POST /v1/agents body (application/json)/properties/trigger/oneOf/2/properties/event_types: array without maxItems",
      "PATCH /v1/agents/{agent_id} body (application/json)/properties/trigger/oneOf/2/properties/event_types: array without maxItems",
    ]);
    // A path parameter, and the items of an array.
    expect(plant((d) => delete d.components.parameters.AnalysisId.schema.maxLength).length).toBeGreaterThan(5);
    expect(plant((d) => delete s(d).ReportCreate.properties.analysis_ids.items.maxLength)).toEqual([
      "POST /v1/reports body (application/json)/properties/analysis_ids/items: string without maxLength",
    ]);
    // An open map.
    expect(plant((d) => (s(d).AnalysisCreate.properties.extra = { type: "object", additionalProperties: { type: "string", maxLength: 5 } }))).toEqual([
      "POST /v1/analyses body (application/json)/properties/extra: open object without maxProperties",
    ]);
  });
});

describe("bounded input: the bounds chosen (docs/decisions/contract.md, Contract hardening)", () => {
  const policy = doc["x-rate-limit-policy"];
  const highestPlanRpm = Math.max(...Object.values<{ requests_per_minute: number }>(policy.plans).map((p) => p.requests_per_minute));

  it("rate_limit_rpm accepts 1 up to the highest plan's per-minute limit, read from x-rate-limit-policy", () => {
    for (const name of ["ApiKeyCreate", "ApiKeyUpdate"]) {
      const rpm = schemas[name].properties.rate_limit_rpm;
      expect([name, rpm.minimum, rpm.maximum]).toEqual([name, 1, highestPlanRpm]);
    }
  });

  it("a uniqueItems array of an enum holds at most the enum's size (features, event types, modalities)", () => {
    const deref = makeDeref(doc);
    let n = 0;
    for (const [name, s] of Object.entries<Json>(schemas)) {
      for (const [prop, p] of Object.entries<Json>(s.properties ?? {})) {
        const items = deref(p.items);
        if (p.type !== "array" || !p.uniqueItems || !items?.enum) continue;
        expect(`${name}.${prop} ${p.maxItems}`).toBe(`${name}.${prop} ${items.enum.length}`);
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(12);
  });

  it("inline text is at most 500,000 characters for an analysis, 100,000 for the synchronous text analysis, as their descriptions say", () => {
    const { AnalysisCreate, TextAnalysisCreate } = schemas;
    expect([AnalysisCreate.properties.text.maxLength, TextAnalysisCreate.properties.text.maxLength]).toEqual([500_000, 100_000]);
    expect(AnalysisCreate.properties.text.description).toContain("500,000 characters");
    expect(TextAnalysisCreate.properties.text.description).toContain("100,000 characters");
  });

  it("an identifier's maxLength is what its pattern already allows (prefix, underscore, up to 40 characters)", () => {
    let n = 0;
    JSON.stringify(doc, (_k, v) => {
      const m = typeof v?.pattern === "string" ? /^\^([a-z]+)_\[0-9A-Za-z\]\{8,40\}\$$/.exec(v.pattern) : null;
      if (m) {
        expect(`${v.pattern} ${v.maxLength}`).toBe(`${v.pattern} ${m[1]!.length + 41}`);
        n++;
      }
      return v;
    });
    expect(n).toBeGreaterThan(100);
  });
});

describe("webhook URLs carry no credentials", () => {
  const ajv = createAjv();
  for (const name of ["WebhookCreate", "WebhookUpdate"]) {
    it(`${name}.url refuses user information and keeps https:// and loopback http://`, () => {
      const valid = ajv.compile(inlineRefs(schemas[name].properties.url));
      for (const url of ["https://user:secret@hooks.example/in", "https://token@hooks.example/", "http://user:pw@127.0.0.1:8080/hook", "http://hooks.example/in"]) {
        expect([url, valid(url)]).toEqual([url, false]);
      }
      for (const url of ["https://hooks.example/in", "https://hooks.example:8443/a@b?c=d", "http://127.0.0.1:8080/hook", "http://localhost"]) {
        expect([url, valid(url)]).toEqual([url, true]);
      }
    });
  }
});
