// Request validation against the contract, with the contract's error bodies: 422 `{detail: [{loc, msg, type}]}`
// listing the violations (the first 100, see issues.ts), 400 `{detail}` for a body that cannot be parsed.
// Validators are compiled once per operation (on first use) and cached; component schemas are registered with
// ajv once at start-up, with the guards of bounds.ts that keep validation cheap.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { fastFormats } from "ajv-formats/dist/formats.js";
import type { IncomingHttpHeaders } from "node:http";
import { guardArrays, jsonBodyLimit, useLinearUniqueItems } from "./bounds.js";
import type { Contract, Json, Route } from "./contract-build.js";
import { IssueCollector, pointer, toIssues, type ValidationIssue } from "./issues.js";
import { DEFAULT_LIMITS } from "../access/limits.js";
import { quote, withoutExcerpt } from "../pipeline/log.js";
import { ruleAnswer, type RuleAnswer } from "./rule-status.js";

export { MAX_REPORTED_ISSUES, toIssues, type ValidationIssue } from "./issues.js";

// ajv-formats is CommonJS; under ESM its function sits on `default`.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A file part of a multipart body: its file name, the part's content type, its size in bytes. */
export interface UploadedFile {
  name: string;
  type: string | null;
  size: number;
  /** A text part's content (`text/plain`, `text/markdown`…), which the mock analyses as text (decision RM18). */
  text?: string;
  /** The part itself, until its text is read. */
  blob?: Blob;
}

/** Longest text file read as text: the contract's bound on inline `text` (AnalysisCreate, 500,000 characters, at most 4 bytes each). */
const MAX_TEXT_FILE_BYTES = 2_000_000;

/** Reads the text of a form's `text/*` file parts (async, which the form's parse is not). */
async function readTextParts(body: unknown): Promise<void> {
  for (const f of Object.values(uploadedFiles(body))) {
    if (f.blob && /^text\//i.test(f.type ?? "") && f.size <= MAX_TEXT_FILE_BYTES) f.text = await f.blob.text();
    delete f.blob;
  }
}

const UPLOADED_FILES = Symbol("uploaded files");

/** The file parts of a parsed multipart body, by field name (none for any other body). */
export function uploadedFiles(body: unknown): Record<string, UploadedFile> {
  return (body && typeof body === "object" ? (body as Record<symbol, Record<string, UploadedFile>>)[UPLOADED_FILES] : undefined) ?? {};
}

/** A request the gateway cannot even parse: 400. */
export class BadRequest extends Error {}

const SCHEMA_BASE = "https://contract.invalid/components/schemas/";

/** The id under which `createContractAjv` registers component schema `name`. */
export function componentSchemaId(name: string): string {
  return SCHEMA_BASE + name;
}

/**
 * An ajv (JSON Schema 2020-12, formats) holding every component schema of the contract, each compilable on its
 * own: `#/components/schemas/X` refs are rewritten to absolute ids. `coerce` turns strings into declared types.
 * Arrays over their `maxItems` are not looked into, and `uniqueItems` is linear (bounds.ts); what is valid stays
 * the same.
 */
export function createContractAjv(contract: Contract, coerce: boolean): Ajv2020 {
  const schemas: Record<string, Json> = JSON.parse(
    JSON.stringify(contract.doc.components?.schemas ?? {}).replaceAll('"#/components/schemas/', `"${SCHEMA_BASE}`),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, coerceTypes: coerce ? "array" : false, useDefaults: false });
  addFormats(ajv);
  // `format: email` as JSON Schema means it (RFC 5321/5322 addr-spec): a domain without a dot (`0@com`) is an
  // address. ajv-formats' default ("full") definition asks for a dot, so the mock answered 422 to what the contract
  // allows (Schemathesis found it); its "fast" definition of the same format does not. One definition, ajv-formats'.
  ajv.addFormat("email", fastFormats.email);
  useLinearUniqueItems(ajv);
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(guardArrays(schema), SCHEMA_BASE + name);
  return ajv;
}

/** Is a Content-Type (parameters allowed) JSON: `application/json` or `application/…+json`? */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return isJson((contentType ?? "").split(";")[0]!.trim().toLowerCase());
}

type Location = "path" | "query" | "header";

interface ParamSet {
  validate: ValidateFunction;
  params: Json[];
  /** None of them is required: a request sending none of them is valid without asking ajv (most GETs). */
  optional: boolean;
}

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);
const NONE: readonly Json[] = Object.freeze([]);

interface MediaEntry {
  /** Null: accepted without schema validation (raw bytes). */
  validate: ValidateFunction | null;
  content: Json;
}

interface BodySpec {
  required: boolean;
  /** Media type (lower case) → its validator. */
  media: Map<string, MediaEntry>;
}

export interface CompiledRoute {
  params: Partial<Record<Location, ParamSet>>;
  body: BodySpec | null;
}

export class RequestValidator {
  /** Validates parsed JSON as it is. */
  private readonly strictAjv: Ajv2020;
  /** Validates strings from URLs, headers and forms, coercing them to the declared types. */
  private readonly coercingAjv: Ajv2020;
  private readonly cache = new Map<Route, CompiledRoute>();
  /** The largest JSON request body worth reading (bounds.ts: 7 MiB for the contract's 500,000-character text). */
  readonly maxJsonBodyBytes: number;

  constructor(
    private readonly contract: Contract,
    /** Fields of one form, and object members of one JSON body, read at most (limits.ts): more answers 400. */
    private readonly caps: { formFields: number; jsonMembers: number } = { formFields: DEFAULT_LIMITS.formFields, jsonMembers: DEFAULT_LIMITS.jsonMembers },
  ) {
    this.strictAjv = createContractAjv(contract, false);
    this.coercingAjv = createContractAjv(contract, true);
    this.maxJsonBodyBytes = jsonBodyLimit(contract, isJson);
  }

  compiled(route: Route): CompiledRoute {
    let c = this.cache.get(route);
    if (!c) this.cache.set(route, (c = this.compile(route)));
    return c;
  }

  /** Compiles every operation's validators now, instead of on each operation's first request. */
  warm(): void {
    for (const r of this.contract.router.routes) this.compiled(r);
  }

  /** Like `warm`, one operation per turn of the event loop, so requests are served meanwhile. */
  async warmInBackground(): Promise<void> {
    for (const r of this.contract.router.routes) {
      await new Promise((resolve) => setImmediate(resolve));
      this.compiled(r);
    }
  }

  private rewrite(schema: Json): Json {
    return schema === undefined ? {} : guardArrays(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMA_BASE}`)));
  }

  private compile(route: Route): CompiledRoute {
    const params: CompiledRoute["params"] = {};
    for (const where of ["path", "query", "header"] as const) {
      const list = route.parameters.filter((p) => p.in === where);
      if (!list.length) continue;
      const schema = {
        type: "object",
        properties: Object.fromEntries(list.map((p) => [p.name, this.rewrite(p.schema)])),
        required: list.filter((p) => p.required).map((p) => p.name),
      };
      params[where] = { validate: this.coercingAjv.compile(schema), params: list, optional: schema.required.length === 0 };
    }
    let body: BodySpec | null = null;
    const rb = this.contract.deref(route.op.requestBody);
    if (rb?.content) {
      body = { required: rb.required === true, media: new Map() };
      for (const [mt, content] of Object.entries<Json>(rb.content)) {
        const structured = isJson(mt) || isForm(mt);
        const ajv = isJson(mt) ? this.strictAjv : this.coercingAjv;
        body.media.set(mt.toLowerCase(), { validate: structured ? ajv.compile(this.rewrite(content.schema)) : null, content });
      }
    }
    return { params, body };
  }

  /**
   * The errors of a failed validation with each discriminated `oneOf` narrowed to the variant the value names,
   * so a 422 lists that variant's real violations instead of every variant's mismatch.
   */
  private narrow(ajv: Ajv2020, errors: ErrorObject[], data: unknown, depth = 0): ErrorObject[] {
    const umbrella = errors.find((e) => e.keyword === "oneOf" && (e.parentSchema as Json)?.discriminator?.propertyName);
    if (!umbrella || depth > 8) return errors;
    const prop: string = (umbrella.parentSchema as Json).discriminator.propertyName;
    const base = umbrella.instancePath;
    const value = at(data, base);
    if (!value || typeof value !== "object" || Array.isArray(value)) return errors.filter((e) => e !== umbrella || errors.length === 1);
    const inside = (e: ErrorObject) => e.instancePath === base || e.instancePath.startsWith(base + "/");
    const rest = errors.filter((e) => !inside(e));
    const branches: Json[] = (umbrella.parentSchema as Json).oneOf ?? [];
    const tags = branches.map((b) => this.discriminatorValue(ajv, b, prop));
    const tag = (value as Record<string, unknown>)[prop];
    const i = tag === undefined ? -1 : tags.indexOf(tag);
    if (i < 0) {
      const missing = tag === undefined;
      const synthetic: ErrorObject = {
        keyword: missing ? "required" : "enum",
        instancePath: missing ? base : `${base}/${prop.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        schemaPath: umbrella.schemaPath,
        params: missing ? { missingProperty: prop } : { allowedValues: tags.filter((t) => t !== undefined) },
        message: missing ? `must have required property '${prop}'` : "must be equal to one of the allowed values",
      };
      return [...rest, synthetic];
    }
    const validate = this.branchValidator(ajv, branches[i]);
    validate(value);
    const branchErrors = (validate.errors ?? []).map((e) => ({ ...e, instancePath: base + e.instancePath }));
    return this.narrow(ajv, [...rest, ...branchErrors], data, depth + 1);
  }

  /**
   * The errors of a failed "exactly one of" (`oneOf` whose variants each require a property the others forbid,
   * spec/README.md § Rules every operation follows) narrowed to the variants whose property the value has: a body
   * with `text` gets the text variant's violations, one with both gets each variant's ("cannot be combined with
   * `media_url`"), one with neither one `oneOf` item naming the choice. Errors outside the `oneOf` are kept.
   */
  private narrowExclusive(ajv: Ajv2020, errors: ErrorObject[], data: unknown): ErrorObject[] {
    const umbrella = errors.find((e) => e.keyword === "oneOf" && exclusiveProperties(e.parentSchema as Json) !== null);
    const value = umbrella && at(data, umbrella.instancePath);
    if (!umbrella || !value || typeof value !== "object" || Array.isArray(value)) return errors;
    const branches: Json[] = (umbrella.parentSchema as Json).oneOf;
    const own = exclusiveProperties(umbrella.parentSchema as Json)!;
    const rest = errors.filter((e) => e !== umbrella && !e.schemaPath.startsWith(umbrella.schemaPath + "/"));
    const chosen = own.flatMap((name, i) => (Object.hasOwn(value, name) ? [i] : []));
    if (!chosen.length) return [...rest, { ...umbrella, params: { ...umbrella.params, exclusive: own } }];
    const base = umbrella.instancePath;
    const branchErrors = chosen.flatMap((i) => {
      const validate = this.branchValidator(ajv, branches[i]);
      return validate(value) ? [] : (validate.errors ?? []).map((e) => ({ ...e, instancePath: base + e.instancePath, schemaPath: `${umbrella.schemaPath}/${i}${e.schemaPath.slice(1)}`, params: { ...e.params, given: own[i] } }));
    });
    return [...rest, ...branchErrors];
  }

  private branchCache = new WeakMap<object, ValidateFunction>();

  private branchValidator(ajv: Ajv2020, branch: Json): ValidateFunction {
    let v = this.branchCache.get(branch);
    if (!v) this.branchCache.set(branch, (v = typeof branch.$ref === "string" && ajv.getSchema(branch.$ref) ? ajv.getSchema(branch.$ref)! : ajv.compile(branch)));
    return v;
  }

  private discriminatorValue(ajv: Ajv2020, branch: Json, prop: string): unknown {
    const schema: Json = typeof branch?.$ref === "string" ? ajv.getSchema(branch.$ref)?.schema : branch;
    const p = schema?.properties?.[prop];
    return p?.const ?? p?.enum?.[0];
  }

  /** Violations of the path, query and header parameters. */
  checkParams(route: Route, pathParams: Record<string, string>, query: URLSearchParams, headers: IncomingHttpHeaders): readonly ValidationIssue[] {
    const c = this.compiled(route);
    // Allocated on the first violation only: this runs on every request, and most have none.
    let issues: IssueCollector | null = null;
    if (c.params.path) issues = this.checkSet(c, "path", { ...pathParams }, issues);
    if (c.params.query) {
      const values: Record<string, unknown> = {};
      let sent = false;
      for (const p of query.size === 0 ? NONE : c.params.query.params) {
        const all = query.getAll(p.name);
        if (!all.length) continue;
        const array = schemaType(this.contract.deref(p.schema), this.contract) === "array";
        values[p.name] = array ? (p.explode === false ? all.flatMap((v) => v.split(",")) : all) : all[0];
        sent = true;
      }
      if (sent || !c.params.query.optional) issues = this.checkSet(c, "query", values, issues);
    }
    if (c.params.header) {
      const values: Record<string, unknown> = {};
      let sent = false;
      for (const p of c.params.header.params) {
        const v = headers[String(p.name).toLowerCase()];
        if (v !== undefined) {
          values[p.name] = Array.isArray(v) ? v.join(", ") : v;
          sent = true;
        }
      }
      if (sent || !c.params.header.optional) issues = this.checkSet(c, "header", values, issues);
    }
    return issues ? issues.result() : NO_ISSUES;
  }

  /**
   * Validates one location's values, adding its violations to `issues`, made on the first one (a method: no
   * closure per request).
   */
  private checkSet(c: CompiledRoute, where: Location, values: Record<string, unknown>, issues: IssueCollector | null): IssueCollector | null {
    const set = c.params[where];
    if (!set || set.validate(values)) return issues;
    return (issues ?? new IssueCollector()).add(where, this.narrow(this.coercingAjv, set.validate.errors ?? [], values));
  }

  /**
   * What `readBody` may read of a request body sent with `contentType`: the media type and its kind (`json`,
   * `form`, or `raw` bytes that are counted, not kept); `none` when the operation takes no body; `refused`, with the
   * reason, when it takes none of this media type (decision G21).
   */
  bodyMedia(route: Route, contentType: string | undefined): BodyMedia {
    const spec = this.compiled(route).body;
    if (!spec) return { kind: "none" };
    const mt = mediaTypeOf(contentType);
    if (!mediaEntry(spec, mt)) return { kind: "refused", detail: notAccepted(spec, mt) };
    return { kind: isJson(mt) ? "json" : isForm(mt) ? "form" : "raw", mediaType: mt };
  }

  /**
   * Parses and validates a body. Throws BadRequest for unparseable input or a media type the operation does not
   * take; returns the violations otherwise.
   */
  async checkBody(route: Route, contentType: string | undefined, raw: Buffer): Promise<{ issues: ValidationIssue[]; value: unknown; rule?: RuleAnswer }> {
    const spec = this.compiled(route).body;
    if (!spec) return { issues: [], value: undefined };
    if (raw.length === 0) {
      // Raw bytes whose schema sets no `minLength` may be zero bytes long (Schemathesis sent an empty upload and got
      // 422 although the contract allows it); a JSON or form body of zero bytes is no body at all.
      const raw0 = mediaEntry(spec, mediaTypeOf(contentType));
      if (raw0 && !raw0.validate && !(Number(this.contract.deref(raw0.content.schema)?.minLength) > 0)) return { issues: [], value: raw };
      return spec.required ? { issues: [{ loc: ["body"], msg: "Request body is required.", type: "required" }], value: undefined } : { issues: [], value: undefined };
    }
    const mt = mediaTypeOf(contentType);
    const entry = mediaEntry(spec, mt);
    if (!entry) throw new BadRequest(notAccepted(spec, mt));
    let value: unknown;
    if (isJson(mt)) {
      checkMemberCount(raw, this.caps.jsonMembers);
      try {
        value = JSON.parse(raw.toString("utf8"));
      } catch (e) {
        throw new BadRequest(`Request body is not valid JSON: ${jsonErrorWhere(withoutExcerpt((e as Error).message), raw.toString("utf8"))}`);
      }
    } else if (mt === "application/x-www-form-urlencoded") {
      checkFieldCount(raw, "&", this.caps.formFields);
      value = formToObject(new URLSearchParams(raw.toString("utf8")), entry.content, this.contract, this.caps.formFields);
    } else if (mt === "multipart/form-data") {
      const boundary = /;\s*boundary="?([^";]+)"?/i.exec(contentType ?? "")?.[1];
      if (boundary) checkFieldCount(raw, `--${boundary}`, this.caps.formFields + 1); // n parts have n + 1 delimiters
      let form: FormData;
      try {
        form = await new Request("http://body.invalid/", { method: "POST", headers: { "content-type": contentType! }, body: new Uint8Array(raw) }).formData();
      } catch {
        throw new BadRequest("Request body is not valid multipart/form-data (check the boundary).");
      }
      value = formToObject(form, entry.content, this.contract, this.caps.formFields);
      await readTextParts(value);
    } else {
      return { issues: [], value: raw };
    }
    if (entry.validate && !entry.validate(value)) {
      const ajv = isJson(mt) ? this.strictAjv : this.coercingAjv;
      const errors = this.narrowExclusive(ajv, entry.validate.errors ?? [], value);
      const rule = ruleAnswer(errors);
      if (rule) return { issues: [], value, rule };
      return { issues: toIssues("body", this.narrow(ajv, errors, value)), value };
    }
    return { issues: [], value };
  }
}

/** How a request body of one media type is read (`bodyMedia`). */
export type BodyMedia =
  | { kind: "json" | "form" | "raw"; mediaType: string }
  | { kind: "none" }
  | { kind: "refused"; detail: string };

/** The media type of a Content-Type header, lower case, without parameters ("" when there is none). */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The operation's entry for media type `mt`, a declared range (`audio/*`) included. */
function mediaEntry(spec: BodySpec, mt: string): MediaEntry | undefined {
  return spec.media.get(mt) ?? [...spec.media].find(([k]) => matchesMediaRange(k, mt))?.[1];
}

function notAccepted(spec: BodySpec, mt: string): string {
  return `Content-Type ${quote(mt) || "(none)"} is not accepted here; send ${[...spec.media.keys()].join(" or ")}.`;
}

function isJson(mt: string): boolean {
  return mt === "application/json" || /^application\/[\w.+-]+\+json$/.test(mt);
}

function isForm(mt: string): boolean {
  return mt === "application/x-www-form-urlencoded" || mt === "multipart/form-data";
}

function matchesMediaRange(range: string, mt: string): boolean {
  if (range === "*/*") return true;
  const [type, sub] = range.split("/");
  return sub === "*" && mt.startsWith(type + "/");
}

/** `Unexpected token … in JSON at position 12` → `… at line 1, column 13.` */
function jsonErrorWhere(message: string, text: string): string {
  const m = /^(.*?) in JSON at position (\d+)/.exec(message);
  if (!m) return message.endsWith(".") ? message : message + ".";
  const before = text.slice(0, Number(m[2])).split("\n");
  return `${m[1]} at line ${before.length}, column ${before[before.length - 1]!.length + 1}.`;
}

/** The JSON type a schema declares, following refs and looking into one-of branches. */
function schemaType(schema: Json, contract: Contract): string | undefined {
  const s = contract.deref(schema);
  if (!s || typeof s !== "object") return undefined;
  if (typeof s.type === "string") return s.type;
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== "null");
  for (const k of ["oneOf", "anyOf", "allOf"]) {
    for (const b of s[k] ?? []) {
      const t = schemaType(b, contract);
      if (t) return t;
    }
  }
  return undefined;
}

/** The schema of property `name` of an object schema, looking into one-of branches (first that has it). */
function propertySchema(schema: Json, name: string, contract: Contract): Json {
  const s = contract.deref(schema);
  if (!s || typeof s !== "object") return undefined;
  if (s.properties && Object.hasOwn(s.properties, name)) return s.properties[name];
  for (const k of ["oneOf", "anyOf", "allOf"]) {
    for (const b of s[k] ?? []) {
      const p = propertySchema(b, name, contract);
      if (p) return p;
    }
  }
  return undefined;
}

/**
 * A JSON body with more object members than `cap`, all levels together, answers 400 before it is even parsed:
 * hundreds of thousands of unknown fields (a 7 MiB body) cost seconds to parse and validate (issue 22). Each member
 * has exactly one `:` outside strings, so a scan of the bytes counts them, stopping at the cap; a hand-written
 * scan because no JSON parser counts without building the objects, which is the cost avoided.
 */
function checkMemberCount(raw: Buffer, cap: number): void {
  let members = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (inString) {
      if (b === 0x5c /* \ */) i++;
      else if (b === 0x22 /* " */) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x3a /* : */ && ++members > cap) {
      throw new BadRequest(`Request body has more than ${cap} object members (fields), the most the mock reads in one body.`);
    }
  }
}

/**
 * A form with more than `cap` fields answers 400 before it is parsed: `separator` (`&`, or a multipart delimiter)
 * is counted in the raw bytes (Buffer.indexOf), so 80,000 fields cost a scan, not 80,000 entries.
 */
function checkFieldCount(raw: Buffer, separator: string, cap: number): void {
  let count = 1;
  for (let at = raw.indexOf(separator); at >= 0; at = raw.indexOf(separator, at + separator.length)) {
    if (++count > cap) throw new BadRequest(`Form has more than ${cap - (separator === "&" ? 0 : 1)} fields, the most the mock reads in one body.`);
  }
}

/** The values of each field of a form, in one pass (`getAll` per name was quadratic); more than `cap` fields answer 400. */
function formFields(form: URLSearchParams | FormData, cap: number, files: Record<string, UploadedFile>): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  let count = 0;
  for (const [name, v] of form) {
    if (++count > cap) throw new BadRequest(`Form has more than ${cap} fields, the most the mock reads in one body.`);
    // A field's first file part: what the contract derives from it (`x-derived`: content type, size) reads this.
    if (typeof v !== "string" && !fields.has(name)) files[name] = { name: (v as File).name || "file", type: (v as File).type || null, size: (v as File).size, blob: v as File };
    const value = typeof v === "string" ? v : (v as File).name || "file";
    const values = fields.get(name);
    if (values) values.push(value);
    else fields.set(name, [value]);
  }
  return fields;
}

/**
 * A form (urlencoded or multipart) as the object its schema describes: repeated fields become arrays where the
 * property is an array, parts whose encoding is JSON are parsed, files stand for their file name.
 */
function formToObject(form: URLSearchParams | FormData, content: Json, contract: Contract, cap: number): unknown {
  const out: Record<string, unknown> = {};
  const files: Record<string, UploadedFile> = {};
  // Beside the value, not in it: validation and the record see the file name; what the contract derives from
  // the part (`x-derived`: content type, size) reads these.
  Object.defineProperty(out, UPLOADED_FILES, { value: files, enumerable: false });
  for (const [name, values] of formFields(form, cap, files)) {
    const prop = propertySchema(content.schema, name, contract);
    const encoding = content.encoding && Object.hasOwn(content.encoding, name) ? content.encoding[name] : undefined;
    const ct: string = encoding?.contentType ?? "";
    let value: unknown;
    if (ct.includes("application/json")) {
      try {
        value = JSON.parse(values[0]!);
      } catch {
        throw new BadRequest(`Form field ${quote(name)} is not valid JSON.`);
      }
    } else {
      value = schemaType(prop, contract) === "array" ? values : values[0];
    }
    // An own property even for `__proto__` (as JSON.parse makes it), so validation sees every field sent.
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The property each variant of an "exactly one of" requires and every other variant forbids; null for any other `oneOf`. */
function exclusiveProperties(schema: Json): string[] | null {
  const variants: unknown = schema?.oneOf;
  if (!Array.isArray(variants) || variants.length < 2) return null;
  const own = variants.map((v: Json) => (v?.required ?? []).find((name: string) => variants.every((w: Json) => w === v || w?.properties?.[name] === false)));
  return own.every((name) => typeof name === "string") ? own : null;
}

function at(data: unknown, instancePath: string): unknown {
  return pointer(instancePath).reduce<unknown>((acc, k) => (acc && typeof acc === "object" ? (acc as Record<string | number, unknown>)[k] : undefined), data);
}
