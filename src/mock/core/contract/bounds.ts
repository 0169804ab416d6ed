// What keeps validating one request cheap, whatever the request holds (issue 15):
//  - an array over its `maxItems` is not looked into: with `allErrors` ajv would still run `items` and
//    `uniqueItems` on all of it (200,000 features froze the gateway for 76 s);
//  - `uniqueItems` runs in linear time, also where the contract gives no `maxItems`: ajv compares every pair of
//    items whose type it cannot tell from the schema (items given by `$ref`);
//  - a JSON body may be only as large as the contract's largest JSON request can be.
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { SchemaValidateFunction } from "ajv/dist/types/index.js";
import type { Contract, Json } from "./contract-build.js";

/** Keywords whose values are schemas, lists of schemas, or maps of name → schema (JSON Schema 2020-12). */
const SUBSCHEMA = new Set(["items", "contains", "not", "if", "then", "else", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties"]);
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]);
/** Keywords that look at each item of an array. */
const ITEM_KEYWORDS = ["items", "prefixItems", "uniqueItems", "contains", "minContains", "maxContains"];

const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A copy of `schema` in which every schema with a numeric `maxItems` checks its items only when the array is
 * within it: `{maxItems: N, items: S, uniqueItems: true}` becomes `{maxItems: N, allOf: [{if: {maxItems: N},
 * then: {items: S, uniqueItems: true}}]}`. Valid and invalid values stay exactly the same; an array over its
 * `maxItems` is reported by `maxItems` alone, at the cost of reading its length.
 */
export function guardArrays(schema: Json): Json {
  if (!isObject(schema)) return schema;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SUBSCHEMA.has(k)) out[k] = guardArrays(v);
    else if (SUBSCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(guardArrays);
    else if (SUBSCHEMA_MAPS.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, guardArrays(s)]));
    else out[k] = v;
  }
  if (typeof out.maxItems !== "number") return out;
  const itemChecks: Record<string, Json> = {};
  for (const k of ITEM_KEYWORDS) {
    if (!(k in out)) continue;
    itemChecks[k] = out[k];
    delete out[k];
  }
  if (Object.keys(itemChecks).length === 0) return out;
  out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { if: { maxItems: out.maxItems }, then: itemChecks }];
  return out;
}

/** Items nested deeper than this are not compared (no contract schema nests so deep; they fail their own schema). */
const MAX_COMPARED_DEPTH = 64;

/**
 * A text that is equal for two JSON values exactly when they are equal as JSON Schema compares them (object key
 * order ignored, 1 and 1.0 equal, "1" and 1 not); null for values nested too deep to compare.
 */
function canonical(v: unknown, depth: number): string | null {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v !== "object") return String(v); // numbers (-0 is "0"), booleans, null
  if (depth >= MAX_COMPARED_DEPTH) return null;
  const parts: string[] = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      const c = canonical(item, depth + 1);
      if (c === null) return null;
      parts.push(c);
    }
    return `[${parts.join(",")}]`;
  }
  for (const k of Object.keys(v).sort()) {
    const c = canonical((v as Record<string, unknown>)[k], depth + 1);
    if (c === null) return null;
    parts.push(`${JSON.stringify(k)}:${c}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * `uniqueItems` in one pass over the items (each made canonical once, looked up in a Map), instead of ajv's
 * comparison of every pair when the item type is not known. Hand-written because ajv has no option for it. Its
 * error carries ajv's params: `i` the later index, `j` the earlier one.
 */
const uniqueItems: SchemaValidateFunction = (schema: boolean, data: unknown[]): boolean => {
  uniqueItems.errors = undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i], 0);
    if (key === null) continue;
    const j = seen.get(key);
    if (j !== undefined) {
      uniqueItems.errors = [{ keyword: "uniqueItems", params: { i, j }, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

/** Replaces ajv's `uniqueItems` with the linear one on `ajv` (before any schema is compiled). */
export function useLinearUniqueItems(ajv: Ajv2020): void {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({ keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate: uniqueItems });
}

/** Bytes one character of a JSON string can take at most: an astral code point escaped as `\uD83D\uDE00`. */
export const MAX_JSON_BYTES_PER_CHARACTER = 12;
/** Room for everything but the longest string of the largest JSON request. */
export const JSON_BODY_HEADROOM_BYTES = 1024 ** 2;

/**
 * The largest JSON request body the gateway reads: the contract's longest `maxLength` among JSON request bodies
 * (500,000 characters of `AnalysisCreate.text`), written with every character escaped as a surrogate pair (as
 * Python's json.dumps does by default), plus 1 MiB for the other fields, rounded up to whole MiB: 7 MiB.
 */
export function jsonBodyLimit(contract: Contract, isJson: (mediaType: string) => boolean): number {
  let longest = 0;
  const seen = new Set<Json>();
  const walk = (node: Json): void => {
    const s = contract.deref(node);
    if (!s || typeof s !== "object" || seen.has(s)) return;
    seen.add(s);
    if (typeof s.maxLength === "number") longest = Math.max(longest, s.maxLength);
    for (const [k, v] of Object.entries<Json>(s)) if (k !== "examples" && k !== "example" && k !== "enum" && k !== "const" && k !== "default") walk(v);
  };
  for (const route of contract.router.routes) {
    const content = contract.deref(route.op.requestBody)?.content ?? {};
    for (const [mt, media] of Object.entries<Json>(content)) if (isJson(mt.toLowerCase())) walk(media.schema);
  }
  const mib = 1024 ** 2;
  return Math.ceil((longest * MAX_JSON_BYTES_PER_CHARACTER + JSON_BODY_HEADROOM_BYTES) / mib) * mib;
}
