// Schemathesis-grade values for one field, all read from its schema: the boundaries it states (a string of exactly
// `minLength` and `maxLength`, an empty one, `minimum` and `maximum` and the step inside an exclusive bound, an
// empty array and one of `maxItems`; a huge number where no bound is stated), and unicode that strict code paths
// trip on (an astral character, a combining mark, right-to-left text and its override, NUL, a byte-order mark),
// fitted to the field's length bounds. Each value is kept only when the field's own schema takes it, so a request
// made of them is valid by the contract: any 5xx or refusal as invalid is the service's (probes/inputs.ts).
// Control bytes go in header values, where no fetch sends them (CONTROL_BYTES).
import type { Json } from "../../mock/core/contract/contract-build.js";

/** One value a field may take, and which kind of boundary it is (named in the report: `name max-length`). */
export interface BoundaryValue {
  kind: "min-length" | "max-length" | "empty" | "unicode" | "minimum" | "maximum" | "huge" | "negative" | "min-items" | "max-items" | "control-byte";
  value: unknown;
}

/** Longest string or array a boundary value is built to (a contract bound of 2 GiB is not sent). */
export const MAX_BUILT = 10_000;

/** Strings of code points that strict code paths trip on: astral, combining, RTL and its override, NUL, BOM. */
export const UNICODE_PIECES = ["😀", "e\u0301", "שלום", "\u202Eabc", "\u0000", "\uFEFF", "𝔘"];

/** Control bytes a lenient HTTP parser may keep in a header value (never CR, LF or NUL: they end or break the line). */
export const CONTROL_BYTES = ["\x01", "\x1b", "\x7f", "\x08"];

/** A string of exactly `n` code points made of the unicode pieces, repeated (JSON Schema counts code points). */
export function unicodeOfLength(n: number): string {
  const all = [...UNICODE_PIECES.join("")];
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) out.push(all[i % all.length]!);
  return out.join("");
}

function stringValues(s: Json): BoundaryValue[] {
  const min: number = typeof s.minLength === "number" ? s.minLength : 0;
  const max: number | null = typeof s.maxLength === "number" ? s.maxLength : null;
  const out: BoundaryValue[] = [];
  if (min === 0) out.push({ kind: "empty", value: "" });
  else if (min <= MAX_BUILT) out.push({ kind: "min-length", value: "a".repeat(min) });
  if (max !== null && max <= MAX_BUILT && max > min) out.push({ kind: "max-length", value: "x".repeat(max) });
  const uni = Math.min(max ?? UNICODE_PIECES.join("").length, Math.max(min, [...UNICODE_PIECES.join("")].length));
  if (uni > 0 && uni <= MAX_BUILT) out.push({ kind: "unicode", value: unicodeOfLength(uni) });
  return out;
}

function numberValues(s: Json, integer: boolean): BoundaryValue[] {
  const step = integer ? 1 : 1e-9;
  const out: BoundaryValue[] = [];
  if (typeof s.minimum === "number") out.push({ kind: "minimum", value: s.minimum });
  if (typeof s.exclusiveMinimum === "number") out.push({ kind: "minimum", value: s.exclusiveMinimum + step });
  if (typeof s.maximum === "number") out.push({ kind: "maximum", value: s.maximum });
  if (typeof s.exclusiveMaximum === "number") out.push({ kind: "maximum", value: s.exclusiveMaximum - step });
  if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push({ kind: "huge", value: integer ? Number.MAX_SAFE_INTEGER : 1e308 });
  if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push({ kind: "negative", value: integer ? -Number.MAX_SAFE_INTEGER : -1e308 });
  return out;
}

/** An array of `n` items from `sample` (the field's own items, or the items' enum), distinct when it must be. */
function arrayOf(n: number, sample: unknown[], unique: boolean): unknown[] | null {
  if (!sample.length) return null;
  if (unique) return sample.length >= n ? sample.slice(0, n) : null;
  return Array.from({ length: n }, (_, i) => sample[i % sample.length]);
}

function arrayValues(s: Json, items: Json, own: unknown): BoundaryValue[] {
  const min: number = typeof s.minItems === "number" ? s.minItems : 0;
  const max: number | null = typeof s.maxItems === "number" ? s.maxItems : null;
  const sample = Array.isArray(items?.enum) ? items.enum : Array.isArray(own) ? own : [];
  const out: BoundaryValue[] = [];
  if (min === 0) out.push({ kind: "empty", value: [] });
  else {
    const least = arrayOf(min, sample, s.uniqueItems === true);
    if (least) out.push({ kind: "min-items", value: least });
  }
  if (max !== null && max > min && max <= MAX_BUILT) {
    const most = arrayOf(max, sample, s.uniqueItems === true);
    if (most) out.push({ kind: "max-items", value: most });
  }
  return out;
}

/**
 * The boundary values of one field (`s` dereferenced, `items` its items dereferenced), before the field's own
 * schema is asked whether it takes each (the caller's job: it holds the validator). `own` is the field's value in
 * the example, whose items an array's boundaries repeat.
 */
export function boundaryValues(s: Json, items: Json, own: unknown): BoundaryValue[] {
  if (!s || typeof s !== "object" || s.readOnly || s.const !== undefined || Array.isArray(s.enum)) return [];
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const main = types.find((t) => t !== "null");
  if (main === "string") return stringValues(s);
  if (main === "integer" || main === "number") return numberValues(s, main === "integer");
  if (main === "array") return arrayValues(s, items, own);
  return [];
}
