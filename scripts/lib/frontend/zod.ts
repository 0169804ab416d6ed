// JSON Schema (the contract's components/schemas) → zod 4 source, for `@avt/api-contract/zod` (decision FE5).
// One `export const Name = /* @__PURE__ */ (() => …)()` per schema, in dependency order (a `$ref` to a schema not yet
// declared, a cycle, is a `z.lazy`): a bundler drops every schema an app does not reach. Plus the response table the
// `validate` option checks against: `METHOD /path` → operationId and, per status, its JSON body's schema.
// Keywords turned into checks: type (arrays, null), enum, const, properties/required/additionalProperties,
// propertyNames, min/maxProperties, items/minItems/maxItems/uniqueItems, minLength/maxLength/pattern, formats
// date-time/uri/email, minimum/maximum/exclusive*, oneOf/anyOf (a union), allOf (an intersection), `true`/`false`.
// Not checked (left to the server, which enforces them on requests): if/then/else, not, contains, dependentSchemas,
// contentSchema (a string's JSON content), discriminator (the union tries each branch).
type Schema = boolean | { [key: string]: unknown };
type Obj = { [key: string]: unknown };

const j = (v: unknown) => JSON.stringify(v);
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** The zod expression of one schema; `ref(name)` is how a `$ref` to a component is written. */
export function zodOf(schema: Schema | undefined, ref: (name: string) => string): string {
  if (schema === undefined || schema === true) return "z.unknown()";
  if (schema === false) return "z.never()";
  if (typeof schema.$ref === "string") return ref(schema.$ref.split("/").pop()!);
  const parts: string[] = [];
  const own = ownType(schema, ref);
  if (own !== undefined) parts.push(own);
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = schema[key] as Schema[] | undefined;
    if (list?.length) parts.push(list.length === 1 ? zodOf(list[0], ref) : `z.union([${list.map((s) => zodOf(s, ref)).join(", ")}])`);
  }
  for (const s of (schema.allOf as Schema[] | undefined) ?? []) parts.push(zodOf(s, ref));
  if (!parts.length) return "z.unknown()";
  return parts.reduce((a, b) => `z.intersection(${a}, ${b})`);
}

/** The schema's own keywords (all but the combinators); undefined when it has none that constrain. */
function ownType(s: Obj, ref: (name: string) => string): string | undefined {
  if ("const" in s) return literal(s.const);
  const types = (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]) as string[];
  const nullable = types.includes("null");
  if (Array.isArray(s.enum)) {
    const values = s.enum.filter((v) => v !== null);
    const e = values.every((v) => typeof v === "string") ? `z.enum(${j(values)})` : `z.union([${values.map(literal).join(", ")}])`;
    return nullable || s.enum.includes(null) ? `${e}.nullable()` : e;
  }
  let kinds = types.filter((t) => t !== "null");
  if (!kinds.length && (s.properties || s.required || s.additionalProperties !== undefined)) kinds = ["object"];
  if (!kinds.length) return nullable ? "z.null()" : undefined;
  const each = kinds.map((t) => typed(t, s, ref));
  const e = each.length === 1 ? each[0]! : `z.union([${each.join(", ")}])`;
  return nullable ? `${e}.nullable()` : e;
}

function literal(v: unknown): string {
  return v === null ? "z.null()" : typeof v === "object" ? "z.unknown()" : `z.literal(${j(v)})`;
}

function typed(type: string, s: Obj, ref: (name: string) => string): string {
  switch (type) {
    case "string":
      return str(s);
    case "integer":
    case "number":
      return num(type === "integer" ? "z.int()" : "z.number()", s);
    case "boolean":
      return "z.boolean()";
    case "array":
      return arr(s, ref);
    case "object":
      return obj(s, ref);
    default:
      throw new Error(`zod: unknown type ${j(type)}`);
  }
}

const FORMATS: Record<string, string> = { "date-time": "z.iso.datetime({ offset: true })", uri: "z.url()", email: "z.email()" };

function str(s: Obj): string {
  let e = FORMATS[s.format as string] ?? "z.string()";
  if (typeof s.minLength === "number") e += `.min(${s.minLength})`;
  if (typeof s.maxLength === "number") e += `.max(${s.maxLength})`;
  if (typeof s.pattern === "string") e += `.regex(new RegExp(${j(s.pattern)}, "u"))`;
  return e;
}

function num(base: string, s: Obj): string {
  let e = base;
  if (typeof s.minimum === "number") e += `.min(${s.minimum})`;
  if (typeof s.maximum === "number") e += `.max(${s.maximum})`;
  if (typeof s.exclusiveMinimum === "number") e += `.gt(${s.exclusiveMinimum})`;
  if (typeof s.exclusiveMaximum === "number") e += `.lt(${s.exclusiveMaximum})`;
  return e;
}

function arr(s: Obj, ref: (name: string) => string): string {
  let e = `z.array(${zodOf(s.items as Schema | undefined, ref)})`;
  if (typeof s.minItems === "number") e += `.min(${s.minItems})`;
  if (typeof s.maxItems === "number") e += `.max(${s.maxItems})`;
  if (s.uniqueItems === true) e += `.refine(unique, "items must be unique")`;
  return e;
}

function obj(s: Obj, ref: (name: string) => string): string {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const extra = s.additionalProperties as Schema | undefined;
  let e: string;
  if (!Object.keys(props).length && typeof extra === "object") {
    const keys = s.propertyNames ? zodOf({ type: "string", ...(s.propertyNames as Obj) }, ref) : "z.string()";
    e = `z.record(${keys}, ${zodOf(extra, ref)})`;
  } else {
    const shape = Object.entries(props).map(([k, v]) => `${j(k)}: ${zodOf(v, ref)}${required.has(k) ? "" : ".optional()"}`);
    for (const k of required) if (!(k in props)) shape.push(`${j(k)}: z.unknown().refine((v) => v !== undefined, "required")`);
    const body = `{ ${shape.join(", ")} }`;
    e = extra === false ? `z.strictObject(${body})` : typeof extra === "object" ? `z.object(${body}).catchall(${zodOf(extra, ref)})` : `z.looseObject(${body})`;
  }
  if (typeof s.minProperties === "number") e += `.refine((o) => Object.keys(o).length >= ${s.minProperties}, "at least ${s.minProperties} properties")`;
  if (typeof s.maxProperties === "number") e += `.refine((o) => Object.keys(o).length <= ${s.maxProperties}, "at most ${s.maxProperties} properties")`;
  return e;
}

/** The components a schema refers to. */
function refsOf(s: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(s)) for (const x of s) refsOf(x, out);
  else if (s && typeof s === "object") {
    for (const [k, v] of Object.entries(s)) {
      if (k === "$ref" && typeof v === "string") out.add(v.split("/").pop()!);
      else if (!k.startsWith("x-") && k !== "examples" && k !== "default") refsOf(v, out);
    }
  }
  return out;
}

/** Names in an order where each comes after the components it refers to (except around a cycle). */
function dependencyOrder(schemas: Record<string, Schema>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !(name in schemas)) return;
    seen.add(name);
    for (const d of refsOf(schemas[name])) visit(d);
    order.push(name);
  };
  for (const name of Object.keys(schemas)) visit(name);
  return order;
}

const PRELUDE = `import * as z from "zod";

/** uniqueItems: no two items are the same JSON value. */
const unique = (items: readonly unknown[]): boolean => new Set(items.map((v) => JSON.stringify(v))).size === items.length;
`;

/** src/zod/schemas.generated.ts: one named export per component schema. */
export function renderZodSchemas(doc: Obj): string {
  const schemas = ((doc.components as Obj | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const declared = new Set<string>();
  const lines = dependencyOrder(schemas).map((name) => {
    const e = zodOf(schemas[name], (r) => (declared.has(r) ? r : `z.lazy(() => ${r})`));
    declared.add(name);
    const description = (schemas[name] as Obj).description;
    const doc = typeof description === "string" ? `/** ${description.split("\n")[0]!.replace(/\*\//g, "*\\/")} */\n` : "";
    return `${doc}export const ${name} = /* @__PURE__ */ (() => ${e})();`;
  });
  return `// Generated by \`npm run generate\` from spec/openapi.yaml (components/schemas; scripts/lib/frontend/zod.ts). Do not edit.\n${PRELUDE}\n${lines.join("\n")}\n`;
}

/** src/zod/responses.generated.ts: per operation, its id and each status's JSON body schema. */
export function renderZodResponses(doc: Obj): string {
  const responses = ((doc.components as Obj | undefined)?.responses ?? {}) as Record<string, Obj>;
  const rows: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Obj>)) {
    for (const method of METHODS) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const bodies: string[] = [];
      for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Obj>)) {
        const response = typeof r.$ref === "string" ? responses[r.$ref.split("/").pop()!]! : r;
        const schema = ((response.content as Record<string, Obj> | undefined)?.["application/json"])?.schema as Schema | undefined;
        if (schema !== undefined) bodies.push(`${j(status)}: ${zodOf(schema, (n) => `S.${n}`)}`);
      }
      rows.push(`  ${j(`${method.toUpperCase()} ${path}`)}: [${j(op.operationId)}, { ${bodies.join(", ")} }],`);
    }
  }
  return `// Generated by \`npm run generate\` from spec/openapi.yaml (the operations' JSON responses; scripts/lib/frontend/zod.ts). Do not edit.
import * as z from "zod";
import * as S from "./schemas.generated.js";

/** \`METHOD /path/template\` → [operationId, status → the schema of its JSON body]. */
export const RESPONSES: Readonly<Record<string, readonly [operationId: string, bodies: Readonly<Record<string, z.ZodType>>]>> = {
${rows.join("\n")}
};
`;
}
