// `x-filter` on a list operation's query parameter: which property of the listed item it filters, and how
// (spec/README.md, "x-filter"). One grammar, read by lint (`policy/filters`), the mock (store/lists.ts), verify
// (checks/list-filters.ts) and the docs (scripts/contract/generate.ts). The naming conventions the mock once inferred
// filters from are kept only as the defaults lint suggests (`defaultFilter`): nothing filters unless declared.
//
//   x-filter: { property: name, match: prefix }
//
// This module is plain TypeScript with no imports, so the Redocly plugin can load it through tsx.

export const FILTER_KEY = "x-filter";

/** How a query value is matched against the item's property. */
export const MATCHES = ["equals", "prefix", "in", "range-min", "range-max", "after", "before"] as const;
export type Match = (typeof MATCHES)[number];

export interface FilterDecl {
  property: string;
  match: Match;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const typesOf = (schema: Json): string[] => (Array.isArray(schema?.type) ? schema.type : schema?.type ? [schema.type] : []);
const isNumeric = (schema: Json) => typesOf(schema).some((t) => t === "integer" || t === "number");
const isTime = (schema: Json) => typesOf(schema).includes("string") && schema?.format === "date-time";
const isString = (schema: Json) => typesOf(schema).includes("string");

/**
 * The filter a parameter's name suggests for items with these properties (the old conventions, now defaults that
 * lint states): `<p>` equals, `<stem>_after`/`_before` on `<stem>_at`, `min_<p>`/`max_<p>`. Undefined: no filter.
 */
export function defaultFilter(name: string, properties: Record<string, Json>): FilterDecl | undefined {
  if (Object.hasOwn(properties, name)) return { property: name, match: "equals" };
  const range = /^(.+)_(after|before)$/.exec(name);
  if (range && Object.hasOwn(properties, `${range[1]}_at`)) return { property: `${range[1]}_at`, match: range[2] as Match };
  const bound = /^(min|max)_(.+)$/.exec(name);
  if (bound && Object.hasOwn(properties, bound[2]!)) return { property: bound[2]!, match: bound[1] === "min" ? "range-min" : "range-max" };
  return undefined;
}

/** The problems of one `x-filter` value, each with the path inside it; `properties` are the listed item's. */
export function checkFilter(decl: Json, properties: Record<string, Json>): Array<{ message: string; path: string[] }> {
  if (!decl || typeof decl !== "object" || Array.isArray(decl)) return [{ message: "x-filter must be an object: {property: <item property>, match: <how>}.", path: [] }];
  const out: Array<{ message: string; path: string[] }> = [];
  for (const k of Object.keys(decl)) if (k !== "property" && k !== "match") out.push({ message: `x-filter has an unknown field "${k}" (only property and match).`, path: [k] });
  if (!MATCHES.includes(decl.match)) out.push({ message: `x-filter match must be one of ${MATCHES.join(", ")} (found ${JSON.stringify(decl.match)}).`, path: ["match"] });
  if (typeof decl.property !== "string" || !Object.hasOwn(properties, decl.property)) {
    out.push({ message: `x-filter property ${JSON.stringify(decl.property)} is not a property of the listed item (${Object.keys(properties).join(", ")}).`, path: ["property"] });
    return out;
  }
  const schema = properties[decl.property];
  const need: Partial<Record<Match, [(s: Json) => boolean, string]>> = {
    prefix: [isString, "a string"],
    "range-min": [isNumeric, "a number or integer"],
    "range-max": [isNumeric, "a number or integer"],
    after: [isTime, "a date-time string"],
    before: [isTime, "a date-time string"],
  };
  const rule = need[decl.match as Match];
  if (rule && !rule[0](schema)) out.push({ message: `x-filter match ${decl.match} needs ${rule[1]} property; ${decl.property} is not.`, path: ["match"] });
  return out;
}

/** A query value as the JSON value of a property of `schema`'s type. */
function coerce(raw: string, schema: Json): unknown {
  const t = typesOf(schema).find((x) => x !== "null");
  if (t === "boolean") return raw === "true";
  if (t === "integer" || t === "number") return Number(raw);
  return raw;
}

/**
 * The test a filter makes of the query values given for it (`getAll`; `in` also splits on commas), applied to an
 * item (an object). An array property `equals` when it contains every value given.
 */
export function filterTest(decl: FilterDecl, schema: Json, raw: string[]): (item: Record<string, unknown>) => boolean {
  const p = decl.property;
  switch (decl.match) {
    case "prefix":
      return (v) => typeof v[p] === "string" && raw.every((r) => (v[p] as string).startsWith(r));
    case "in": {
      const set = raw.flatMap((r) => r.split(",")).map((r) => coerce(r, schema));
      return (v) => set.includes(v[p]);
    }
    case "range-min":
      return (v) => (v[p] as number) >= Number(raw[0]);
    case "range-max":
      return (v) => (v[p] as number) <= Number(raw[0]);
    case "after":
      return (v) => Date.parse(v[p] as string) >= Date.parse(raw[0]!);
    case "before":
      return (v) => Date.parse(v[p] as string) < Date.parse(raw[0]!);
    default:
      if (typesOf(schema).includes("array")) return (v) => Array.isArray(v[p]) && raw.every((x) => (v[p] as unknown[]).includes(x));
      return (v) => v[p] === coerce(raw[0]!, schema);
  }
}

/** One sentence describing a filter, for the docs (generate appends it to the parameter's description). */
export function describeFilter(decl: FilterDecl): string {
  const words: Record<Match, string> = {
    equals: "equals the value",
    prefix: "starts with the value",
    in: "is one of the values (comma-separated or repeated)",
    "range-min": "is at least the value",
    "range-max": "is at most the value",
    after: "is at or after the time",
    before: "is before the time",
  };
  return `Filter (\`x-filter\`): items whose \`${decl.property}\` ${words[decl.match]}.`;
}
