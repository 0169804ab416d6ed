// Values the contract derives from the request (`x-derived`, spec/README.md) and defaults that depend on other
// fields (`default` inside the `then` of a conditional subschema): what a new record takes for a field the
// client did not send, before the plain `default`. Read from the contract once per schema; nothing per resource.
//   last-path-segment  the last segment of a URL's path, without query (`…/calls/renewal.mp3?sig=…` → `renewal.mp3`)
//   file-name          the file name of a multipart file part
//   content-type       a file part's content type; `text/plain` for inline text
//   byte-length        a file part's size, the raw body's length, or inline text's UTF-8 length
//   media-kind         `audio`, `video` or `text` from a file part's content type
//   referenced         `property` of the `schema` resource whose id the field holds
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { DERIVED_KEY, type DERIVERS } from "../../../contract/contract-rules.js";
import type { Contract, Json } from "../contract/contract-build.js";
import { bytesReceived } from "../http/body.js";
import { uploadedFiles, type UploadedFile } from "../contract/validation.js";

export { DERIVED_KEY } from "../../../contract/contract-rules.js";

export interface DeriveSource {
  from: string;
  by: (typeof DERIVERS)[number];
  schema?: string;
  property?: string;
}

/** What a request sent, for deriving: its fields, its file parts, its raw body (an octet-stream upload). */
export interface DeriveInput {
  fields: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  raw: Buffer | null;
  /** The record of `schema` with id `id` in the workspace, for `referenced`. */
  lookup(schema: string, id: string): Json | undefined;
}

export function deriveInput(body: unknown, fields: Record<string, unknown>, lookup: DeriveInput["lookup"]): DeriveInput {
  const raw = Buffer.isBuffer(body) ? body : null;
  const own = body && typeof body === "object" && !raw ? (body as Record<string, unknown>) : {};
  return { fields: { ...own, ...fields }, files: uploadedFiles(body), raw, lookup };
}

function lastPathSegment(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    const seg = new URL(url).pathname.split("/").pop();
    return seg ? decodeURIComponent(seg).slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

function mediaKind(type: string | null | undefined): string | undefined {
  const top = type?.split("/")[0];
  return top === "audio" || top === "video" || top === "text" ? top : undefined;
}

/** The value one source gives, or undefined when it does not apply to this request. */
export function deriveOne(s: DeriveSource, input: DeriveInput): unknown {
  const file = input.files[s.from];
  const value = s.from === "$body" ? input.raw : input.fields[s.from];
  if (value === undefined || value === null) return undefined;
  switch (s.by) {
    case "last-path-segment":
      return lastPathSegment(value);
    case "file-name":
      return file?.name;
    case "content-type":
      return file ? (file.type ?? undefined) : typeof value === "string" ? "text/plain" : undefined;
    case "byte-length":
      return file ? file.size : Buffer.isBuffer(value) ? bytesReceived(value) : typeof value === "string" ? Buffer.byteLength(value) : undefined;
    case "media-kind":
      return mediaKind(file?.type);
    case "referenced":
      return typeof value === "string" && s.schema && s.property ? structuredClone(input.lookup(s.schema, value)?.[s.property]) : undefined;
  }
}

/** The first value the sources of a property give for this request. */
export function derive(sources: readonly DeriveSource[] | undefined, input: DeriveInput): unknown {
  for (const s of sources ?? []) {
    const v = deriveOne(s, input);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** A keyword of a property schema: beside its `$ref` (OpenAPI 3.1 allows siblings) or in what it refers to. */
function own(contract: Contract, p: Json, key: string): Json {
  return p?.[key] ?? contract.deref(p)?.[key];
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const conditions = new WeakMap<object, ValidateFunction>();

/** `schema` with its `$ref`s replaced by what they name (conditions are small; this ajv knows no components). */
function inlined(contract: Contract, schema: Json, depth = 0): Json {
  if (Array.isArray(schema)) return schema.map((x) => inlined(contract, x, depth + 1));
  if (!schema || typeof schema !== "object" || depth > 20) return schema;
  const s = typeof schema.$ref === "string" ? { ...contract.deref(schema), ...schema, $ref: undefined } : schema;
  return Object.fromEntries(Object.entries<Json>(s).filter(([k, v]) => k !== "$ref" && v !== undefined).map(([k, v]) => [k, inlined(contract, v, depth + 1)]));
}

function holds(contract: Contract, schema: Json, value: unknown): boolean {
  let v = conditions.get(schema);
  if (!v) conditions.set(schema, (v = ajv.compile(inlined(contract, schema))));
  return v(value) as boolean;
}

/** Each conditional subschema of `schema`: top-level `if`/`then`, `allOf` members, and `dependentSchemas` (with their key). */
function conditionals(contract: Contract, schema: Json): Array<{ key?: string; sub: Json }> {
  const s = contract.deref(schema) ?? {};
  const out: Array<{ key?: string; sub: Json }> = [];
  if (s.if && s.then) out.push({ sub: s });
  for (const m of s.allOf ?? []) out.push(...conditionals(contract, m));
  for (const [key, sub] of Object.entries<Json>(s.dependentSchemas ?? {})) if (sub?.if && sub?.then) out.push({ key, sub });
  return out;
}

/**
 * The value each property of a request schema takes when the client did not send it: its `x-derived` value, else
 * the `default` of a conditional subschema whose condition the request meets, else the property's `default`.
 */
export function requestDefaults(contract: Contract, schema: Json, input: DeriveInput): Record<string, unknown> {
  const props = Object.entries<Json>(contract.deref(schema)?.properties ?? {}).filter(([name]) => !Object.hasOwn(input.fields, name));
  const out: Record<string, unknown> = {};
  for (const [name, p] of props) {
    const v = derive(own(contract, p, DERIVED_KEY), input);
    if (v !== undefined) out[name] = v;
  }
  // Conditions see what was sent and what was derived (an upload's `media_type` from its file).
  const known = { ...input.fields, ...out };
  const conditional: Record<string, unknown> = {};
  for (const { key, sub } of conditionals(contract, schema)) {
    if ((key !== undefined && !Object.hasOwn(known, key)) || !holds(contract, sub.if, known)) continue;
    for (const [name, p] of Object.entries<Json>(sub.then.properties ?? {})) if (p?.default !== undefined && !(name in conditional)) conditional[name] = p.default;
  }
  for (const [name, p] of props) {
    const v = out[name] ?? conditional[name] ?? own(contract, p, "default");
    if (v !== undefined) out[name] = structuredClone(v);
  }
  return out;
}

/** The `x-derived` values of a resource schema's properties (`AnalysisSource`), null where none applies. */
export function derivedFields(contract: Contract, schema: Json, input: DeriveInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries<Json>(contract.deref(schema)?.properties ?? {})) {
    const sources = own(contract, p, DERIVED_KEY);
    if (sources) out[name] = derive(sources, input) ?? null;
  }
  return out;
}

/**
 * The schema of what a create request sends: its JSON or form body's, or, for a body of raw bytes (a stream
 * upload), an object of its query parameters.
 */
export function requestSchemaOf(contract: Contract, route: { op: Json; parameters: readonly Json[] }): Json {
  const content = contract.deref(route.op.requestBody)?.content ?? {};
  for (const [mt, c] of Object.entries<Json>(content)) {
    if (mt.includes("json") || mt.includes("form")) return contract.deref(c?.schema) ?? {};
  }
  const query = route.parameters.filter((p) => p.in === "query");
  return { type: "object", properties: Object.fromEntries(query.map((p) => [p.name, p.schema])), required: query.filter((p) => p.required).map((p) => p.name) };
}
