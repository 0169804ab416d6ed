// The requests the verifier sends for one operation, all derived from the contract:
//   example         each named request-body example (Dredd's way), parameters from their examples;
//   generated       values generated from the schemas and checked valid (generate.ts);
//   no-credentials  the first example without credentials (expects 401);
//   token-query     the first example with the credential in `?token=` instead of a header (REST operations only);
//   unknown-key     the first example with a well-formed credential the service never issued (expects 401);
//   invalid-input   one invalid query value, path id or body, and a body breaking a cross-field rule of its schema
//                   (`dependentSchemas`, `dependentRequired`), each checked invalid by the gateway's own validator;
//   malformed-json  a JSON body cut short.
// Each case says whether it could change state if the service accepted it (`safety`): reads are GET/HEAD; a
// request without credentials is refused before any effect; everything else is a write, sent only with
// --allow-writes.
import type { Json } from "../../mock/core/contract/contract-build.js";
import { isJsonMediaType, type ContractView } from "./contract-view.js";
import { encodeBody, fillPath, queryString, type EncodedBody } from "./encode.js";
import type { ValueGenerator } from "./generate.js";
import type { Operation, PageStep, Probe } from "../types.js";

export type CaseKind = "example" | "generated" | "no-credentials" | "token-query" | "unknown-key" | "invalid-input" | "malformed-json" | "probe" | "page";

export interface RequestCase {
  operation: Operation;
  kind: CaseKind;
  /** e.g. `example default`, `generated 2`, `invalid-input query` */
  label: string;
  method: string;
  /** Path and query string, e.g. `/v1/analyses?limit=20`. */
  path: string;
  body: EncodedBody | null;
  /** `unknown-key`: a well-formed credential the service never issued, made from the configured one (session.ts). */
  credentials: "header" | "token-query" | "none" | "unknown-key";
  safety: "read" | "write" | "refused-before-effect";
  /** Request headers of the case's own (lower case), beside the credentials and the body's Content-Type. */
  headers?: Record<string, string>;
  /** A credential to send instead of the configured one (a revoked key's secret). */
  secret?: string;
  /** The shell variable `secret` becomes in a reproduction's curl line (default `$REVOKED_API_KEY`). */
  secretVar?: string;
  /** The negative case's rule and expected status, for the check that judges it. */
  probe?: Probe;
  /** A page of a walk through a list, for the pagination oracle. */
  page?: PageStep;
  /** Sent over a raw socket as written (a control byte in a header value, which no fetch sends): probes/inputs.ts. */
  raw?: boolean;
}

export interface Parts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: { mediaType: string; value: unknown; media: Json } | null;
  name: string;
}

export class CaseBuilder {
  constructor(
    private readonly view: ContractView,
    readonly generator: ValueGenerator,
  ) {}

  /**
   * Every case of one operation. When its writes will not be sent (`sendsWrites` false), the generated cases are
   * listed (to be reported as skipped) without generating their values, which is the costly part.
   */
  async build(op: Operation, generated: number, sendsWrites = true): Promise<RequestCase[]> {
    const read = op.method === "get" || op.method === "head";
    const examples = this.examples(op);
    const make = async (kind: CaseKind, label: string, parts: Parts, over: Partial<RequestCase> = {}): Promise<RequestCase> => ({
      operation: op,
      kind,
      label,
      method: op.method.toUpperCase(),
      ...(await this.render(op, parts)),
      credentials: op.public ? "none" : "header",
      safety: read ? "read" : "write",
      ...over,
    });
    const cases: RequestCase[] = [];
    for (const parts of examples) cases.push(await make("example", `example ${parts.name}`, parts));
    for (let n = 1; n <= generated; n++) {
      const parts = read || sendsWrites ? this.generatedParts(op, n) : examples[0]!;
      if (parts) cases.push(await make("generated", `generated ${n}`, parts));
    }
    if (op.public) return cases;
    const first = examples[0]!;
    cases.push(await make("no-credentials", "no-credentials", first, { credentials: "none", safety: "refused-before-effect" }));
    if (!op.tokenQuery) cases.push(await make("token-query", "token-query", first, { credentials: "token-query" }));
    const unknownKey: Probe = { kind: "unknown-key", expect: 401, why: "a credential the service never issued is refused (spec §5)" };
    cases.push(await make("unknown-key", "unknown-key", first, { credentials: "unknown-key", safety: "refused-before-effect", probe: unknownKey }));
    for (const [where, parts] of this.invalidParts(op, first)) cases.push(await make("invalid-input", `invalid-input ${where}`, parts));
    const json = Object.keys(this.bodyContent(op)).find(isJsonMediaType);
    if (json) {
      const broken = { contentType: json, bytes: Buffer.from('{"detail": "cut short here') };
      cases.push({ ...(await make("malformed-json", "malformed-json", { ...first, body: null })), body: broken });
    }
    return cases;
  }

  /** The path with its query string, and the encoded body, of a set of parts. */
  async render(op: Operation, parts: Parts): Promise<Pick<RequestCase, "path" | "body">> {
    return {
      path: fillPath(op.template, parts.path) + queryString(this.params(op, "query"), parts.query),
      body: parts.body ? await encodeBody(parts.body.mediaType, parts.body.value, parts.body.media) : null,
    };
  }

  // ---- values ------------------------------------------------------------------------------------------------

  private params(op: Operation, where: "path" | "query"): Json[] {
    return op.parameters.filter((p) => p.in === where);
  }

  private bodyContent(op: Operation): Record<string, Json> {
    return this.view.contract.deref(op.op.requestBody)?.content ?? {};
  }

  /** A parameter's example: its own `example`/`examples`, else its schema's `examples`, `default` or first `enum`. */
  private paramExample(p: Json): unknown {
    const deref = this.view.contract.deref;
    if (p.example !== undefined) return p.example;
    const named = Object.values<Json>(p.examples ?? {})[0];
    if (named !== undefined) return deref(named).value;
    const s = deref(p.schema) ?? {};
    return p.schema?.examples?.[0] ?? s.examples?.[0] ?? s.default ?? s.enum?.[0] ?? this.generator.value(p.schema, 0);
  }

  /** Path parameters and required query parameters from their examples (plus optional ones that show one). */
  private exampleParams(op: Operation): Pick<Parts, "path" | "query"> {
    const path = Object.fromEntries(this.params(op, "path").map((p) => [p.name, this.paramExample(p)]));
    const query: Record<string, unknown> = {};
    for (const p of this.params(op, "query")) if (p.required || p.example !== undefined || p.examples) query[p.name] = this.paramExample(p);
    return { path, query };
  }

  /** One set of parts per named request-body example (one without a body when there is none). */
  examples(op: Operation): Parts[] {
    const params = this.exampleParams(op);
    const out: Parts[] = [];
    for (const [mediaType, media] of Object.entries(this.bodyContent(op))) {
      const resolved = { ...media, schema: this.view.contract.deref(media.schema) };
      const named = Object.entries<Json>(media.examples ?? {}).map(([name, e]) => [name, this.view.contract.deref(e).value] as const);
      if (!named.length && media.example !== undefined) named.push(["default", media.example]);
      for (const [name, value] of named) out.push({ ...params, body: { mediaType, value, media: resolved }, name });
    }
    return out.length ? out : [{ ...params, body: null, name: "default" }];
  }

  /** Generated path, query and body values, valid by the contract; null when no valid request could be made. */
  generatedParts(op: Operation, n: number): Parts | null {
    const path: Record<string, unknown> = {};
    for (const p of this.params(op, "path")) path[p.name] = this.generator.value(p.schema, n) ?? this.paramExample(p);
    const query: Record<string, unknown> = {};
    this.params(op, "query").forEach((p, i) => {
      // Required ones always; optional ones in every other request, alternating, so each appears.
      if (p.required || (n + i) % 2 === 0) {
        const v = this.generator.value(p.schema, n);
        if (v !== undefined) query[p.name] = v;
      }
    });
    const content = Object.entries(this.bodyContent(op));
    let body: Parts["body"] = null;
    if (content.length) {
      const [mediaType, media] = content[0]!;
      const value = this.generator.value(media.schema ?? {}, n);
      if (value === undefined) return null;
      body = { mediaType, value, media: { ...media, schema: this.view.contract.deref(media.schema) } };
    }
    const url = new URL(fillPath(op.template, path) + queryString(this.params(op, "query"), query), "http://x.invalid");
    const pathValues = Object.fromEntries(Object.entries(path).map(([k, v]) => [k, String(v)]));
    if (this.view.requestValidator.checkParams(op, pathValues, url.searchParams, {}).length) return null;
    return { path, query, body, name: `generated ${n}` };
  }

  // ---- invalid input -----------------------------------------------------------------------------------------

  /** At most one invalid variant per location (query, path, body), each confirmed invalid by the validator. */
  private invalidParts(op: Operation, base: Parts): Array<[string, Parts]> {
    const out: Array<[string, Parts]> = [];
    const query = this.firstInvalid(op, this.params(op, "query"), (p, v) => ({ ...base, query: { ...base.query, [p.name]: v } }));
    if (query) out.push(["query", query]);
    const path = this.firstInvalid(op, this.params(op, "path"), (p, v) => ({ ...base, path: { ...base.path, [p.name]: v } }));
    if (path) out.push(["path", path]);
    const body = this.invalidBody(base);
    if (body) out.push(["body", body]);
    const cross = this.crossFieldBody(base);
    if (cross) out.push(["cross-field", cross]);
    return out;
  }

  /**
   * The example body breaking a rule between its fields, as the schema states it: `dependentSchemas` or a `oneOf`
   * variant forbidding a property beside another (`media_url` and `text` exclusive: both sent) or
   * `dependentRequired` (the dependent one left out). Kept only when the validator says it is invalid, so a 422 is what the contract promises.
   */
  private crossFieldBody(base: Parts): Parts | null {
    const b = base.body;
    if (!b || !isJsonMediaType(b.mediaType) || !b.value || typeof b.value !== "object" || Array.isArray(b.value)) return null;
    const value = b.value as Record<string, unknown>;
    const s = this.view.contract.deref(b.media.schema) ?? {};
    const props: Record<string, Json> = s.properties ?? {};
    const valueOf = (name: string) => value[name] ?? this.generator.value(props[name] ?? {}, 1);
    const candidates: unknown[] = [];
    for (const [p, dep] of Object.entries<Json>(s.dependentSchemas ?? {})) {
      for (const [q, sub] of Object.entries<Json>(this.view.contract.deref(dep)?.properties ?? {})) {
        if (sub === false) candidates.push({ ...value, [p]: valueOf(p), [q]: valueOf(q) });
      }
    }
    // An "exactly one of" (`oneOf` variants that each require a property and forbid another): both sent.
    for (const variant of (s.oneOf ?? []) as Json[]) {
      const v = this.view.contract.deref(variant) ?? {};
      for (const p of (v.required ?? []) as string[]) {
        for (const [q, sub] of Object.entries<Json>(v.properties ?? {})) if (sub === false) candidates.push({ ...value, [p]: valueOf(p), [q]: valueOf(q) });
      }
    }
    for (const [p, required] of Object.entries<string[]>(s.dependentRequired ?? {})) {
      for (const q of required) candidates.push(Object.fromEntries(Object.entries({ ...value, [p]: valueOf(p) }).filter(([k]) => k !== q)));
    }
    const validate = this.view.bodyValidator(b.media.schema);
    const invalid = candidates.find((c) => !validate(c));
    return invalid === undefined ? null : { ...base, body: { ...b, value: invalid } };
  }

  private firstInvalid(op: Operation, params: Json[], apply: (p: Json, v: unknown) => Parts): Parts | null {
    for (const p of params) {
      for (const candidate of invalidValues(this.view.contract.deref(p.schema) ?? {})) {
        const parts = apply(p, candidate);
        const url = new URL(fillPath(op.template, parts.path) + queryString(this.params(op, "query"), parts.query), "http://x.invalid");
        const pathValues = this.view.pathParams(op, url.pathname) ?? {};
        if (this.view.requestValidator.checkParams(op, pathValues, url.searchParams, {}).length) return parts;
      }
    }
    return null;
  }

  /** The example body with one required field removed, or one field of the wrong type, whichever is invalid. */
  private invalidBody(base: Parts): Parts | null {
    const b = base.body;
    if (!b || !(isJsonMediaType(b.mediaType) || b.mediaType === "application/x-www-form-urlencoded")) return null;
    if (!b.value || typeof b.value !== "object" || Array.isArray(b.value)) return null;
    const value = b.value as Record<string, unknown>;
    const validate = this.view.bodyValidator(b.media.schema);
    const candidates: unknown[] = [
      ...Object.keys(value).map((k) => Object.fromEntries(Object.entries(value).filter(([name]) => name !== k))),
      ...Object.entries(value).map(([k, v]) => ({ ...value, [k]: typeof v === "number" ? "not-a-number" : 12345 })),
      [],
    ];
    const invalid = candidates.find((c) => !validate(c));
    return invalid === undefined ? null : { ...base, body: { ...b, value: invalid } };
  }
}

/** Values a schema cannot accept, most telling first: a wrong type, a value outside an enum, a pattern or a range. */
function invalidValues(s: Json): unknown[] {
  const out: unknown[] = [];
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "integer" || type === "number") out.push("not-a-number");
  if (type === "boolean") out.push("not-a-boolean");
  if (typeof s.minimum === "number") out.push(s.minimum - 1);
  if (typeof s.maximum === "number") out.push(s.maximum + 1);
  if (Array.isArray(s.enum) || s.items?.enum || s.items?.$ref) out.push("not_a_listed_value");
  if (s.pattern || s.format) out.push("not a valid value!");
  if (typeof s.maxLength === "number") out.push("x".repeat(s.maxLength + 1));
  return out;
}
