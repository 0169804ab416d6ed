// fast-check arbitraries of requests to the mock gateway, derived from the contract (generated/openapi.json):
// valid requests built from each operation's parameter and body examples, bodies mutated field by field,
// malformed JSON, wrong content types, bodies over the size limits or where none is taken, unknown paths and
// methods, odd headers, path traversal in ids, bad credentials, Prefer'd responses, CORS preflights, and requests
// that are not even valid HTTP. Each case carries the statuses it may get (beyond "declared by the contract"), worked out here
// from the bytes it sends, not from the gateway's code.
import type { ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import type { Contract, Json, Route } from "../../../src/mock/core/contract/contract-build.js";
import { componentSchemaId, createContractAjv } from "../../../src/mock/core/contract/validation.js";
import type { RawRequest } from "./http.js";
import type { ContractOracle, OpSpec } from "./oracle.js";

export interface FuzzCase {
  kind: string;
  req: RawRequest;
  /** Malformed HTTP: these exact bytes go over a bare socket instead of `req`. */
  wire?: Buffer;
  /** Statuses this case may get; undefined: whatever the contract declares. */
  expect?: readonly number[];
  /** The status asked for with Prefer (a 5xx is then no failure). */
  preferCode?: number;
  preflight?: boolean;
}

export interface Credentials {
  /** A business-plan key: high limits, so limits do not dominate. */
  key: string;
  /** A key capped at a couple of requests per minute: exercises the 429 paths. */
  tightKey: string;
  validJwt: string;
  expiredJwt: string;
  forgedJwt: string;
}

export interface Limits {
  /** Largest JSON, form or multipart body the gateway reads. */
  maxBodyBytes: number;
  /** Largest raw upload (application/octet-stream) it accepts. */
  maxUploadBytes: number;
  /** Most object members, all levels together, of a JSON body it validates (a larger one answers 400). */
  maxJsonMembers: number;
}

/** Object members of a JSON value, all levels together (the oracle's own count; iterative: bodies nest deep). */
function memberCount(value: unknown): number {
  let n = 0;
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    const items = Array.isArray(v) ? v : Object.values(v);
    if (!Array.isArray(v)) n += items.length;
    for (const item of items) stack.push(item);
  }
  return n;
}

interface BodyVariant {
  contentType: string;
  bytes: Buffer;
}

interface OpInfo {
  spec: OpSpec;
  route: Route;
  pathParams: Json[];
  queryParams: Json[];
  /** Valid bodies, from the operation's named examples. */
  bodies: BodyVariant[];
  /** Parsed JSON examples, for field-by-field mutation. */
  jsonExamples: unknown[];
  bodyRequired: boolean;
  mediaTypes: string[];
  /** Validator of the JSON request body (strict: the gateway validates parsed JSON as it is). */
  jsonSchema: ValidateFunction | null;
  success: number[];
  /** What a well-formed request may get: its success, or a status its state can call for (`stateful`). */
  answered: number[];
}

/** Strings that have broken path handling somewhere: traversal, encodings, NUL, overlong UTF-8, prototype keys. */
export const NASTY_SEGMENTS = [
  "..",
  ".",
  "..%2f..%2fetc%2fpasswd",
  "%2e%2e",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%252e%252e%252f",
  "..%5c..%5cwindows%5cwin.ini",
  "....%2f%2f",
  "%00",
  "anl_01HZX4A9B7C5D3E1F2G4H6J8K0%00",
  "anl_01HZX4A9B7C5D3E1F2G4H6J8K0%2f..",
  "%c0%ae%c0%ae",
  "%",
  "%zz",
  "%E2%80%AE",
  "%F0%9F%98%80",
  "..;",
  "%3B",
  "~root",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "anl_" + "A".repeat(4000),
];

const NASTY_VALUES = ["", "abc", "-1", "0", "1e309", "NaN", "null", "true", "[]", "{}", "%zz", "%00", "%E0%A4%A", "🚀", "\u202e", "x".repeat(3000), "1;DROP TABLE", "<script>"];

const WRONG_CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/octet-stream",
  "application/vnd.api+json",
  "text/json",
  "*/*",
  "application/json, text/plain",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;;;",
  "\u00e9/json",
];

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "PURGE"];

/** Header values with non-ASCII bytes: UTF-8 sent as latin1, so the bytes go on the wire as they are. */
const utf8Bytes = (s: string) => Buffer.from(s, "utf8").toString("latin1");
/** Any string as a header value node:http will send: UTF-8 bytes, control characters (but tab) dropped. */
const headerSafe = (s: string) => utf8Bytes(s).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, "");

const FAR = { min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true };

/**
 * A valid value of a parameter schema that has no example and no pattern: from its `format` (a date-time is an
 * RFC 3339 time, not `x`), else its type and bounds. Only formats ajv-formats checks are made; others fall back to
 * the type. Hand-written because json-schema-faker (a dependency) makes unbounded values that miss `maxLength`.
 */
export function fromSchema(s: Json): fc.Arbitrary<unknown> {
  const types: string[] = Array.isArray(s.type) ? s.type.filter((t: string) => t !== "null") : [s.type ?? "string"];
  const type = types[0] ?? "string";
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  if (type === "integer") return fc.integer({ min: s.minimum ?? 0, max: s.maximum ?? (s.minimum ?? 0) + 1000 });
  if (type === "number") return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
  if (type === "boolean") return fc.boolean();
  const fits = (v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
  const byFormat: Record<string, fc.Arbitrary<string>> = {
    "date-time": fc.date(FAR).map((d) => d.toISOString()),
    date: fc.date(FAR).map((d) => d.toISOString().slice(0, 10)),
    email: fc.emailAddress(),
    uri: fc.webUrl(),
    uuid: fc.uuid(),
  };
  const fromFormat = byFormat[s.format as string];
  if (fromFormat) return fromFormat.filter(fits);
  return fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789"), minLength: Math.max(1, s.minLength ?? 1), maxLength: Math.min(s.maxLength ?? 20, 20) });
}

export class CaseFactory {
  readonly ops: OpInfo[];
  private readonly ajv;

  constructor(
    private readonly contract: Contract,
    private readonly oracle: ContractOracle,
    private readonly creds: Credentials,
    private readonly limits: Limits,
    private readonly multipartBodies: Map<string, BodyVariant[]>,
    only: (spec: OpSpec) => boolean = () => true,
  ) {
    this.ajv = createContractAjv(contract, false);
    const routes = new Map(contract.router.routes.map((r) => [`${r.method} ${r.template}`, r]));
    this.ops = oracle.operations
      .filter((spec) => routes.has(`${spec.method} ${spec.template}`) && only(spec))
      .map((spec) => this.opInfo(spec, routes.get(`${spec.method} ${spec.template}`)!));
  }

  /** Valid multipart bodies need an async serializer (Response + FormData); built once, before the run. */
  static async multipartBodies(contract: Contract): Promise<Map<string, BodyVariant[]>> {
    const out = new Map<string, BodyVariant[]>();
    for (const route of contract.router.routes) {
      const rb = contract.deref(route.op.requestBody);
      const media = rb?.content?.["multipart/form-data"];
      if (!media) continue;
      const variants: BodyVariant[] = [];
      for (const ex of Object.values<Json>(media.examples ?? {})) {
        const value = contract.deref(ex).value as Record<string, unknown>;
        const form = new FormData();
        for (const [name, v] of Object.entries(value)) {
          const ct: string = media.encoding?.[name]?.contentType ?? "";
          if (name === "file") form.append(name, new Blob([String(v)], { type: "video/mp4" }), "weekly-standup.mp4");
          else if (Array.isArray(v)) for (const item of v) form.append(name, String(item));
          else form.append(name, ct.includes("json") ? JSON.stringify(v) : String(v));
        }
        const r = new Response(form);
        variants.push({ contentType: r.headers.get("content-type")!, bytes: Buffer.from(await r.arrayBuffer()) });
      }
      out.set(`${route.method} ${route.template}`, variants);
    }
    return out;
  }

  private opInfo(spec: OpSpec, route: Route): OpInfo {
    const c = this.contract;
    const rb = c.deref(route.op.requestBody);
    const bodies: BodyVariant[] = [];
    const jsonExamples: unknown[] = [];
    let jsonSchema: ValidateFunction | null = null;
    for (const [mt, media] of Object.entries<Json>(rb?.content ?? {})) {
      const values = Object.values<Json>(media.examples ?? {}).map((e) => c.deref(e).value);
      if (mt === "application/json") {
        jsonExamples.push(...values);
        bodies.push(...values.map((v) => ({ contentType: "application/json", bytes: Buffer.from(JSON.stringify(v)) })));
        const base = componentSchemaId("");
        jsonSchema = this.ajv.compile(JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/schemas/', `"${base}`)));
      } else if (mt === "application/x-www-form-urlencoded") {
        bodies.push(...values.map((v) => ({ contentType: mt, bytes: Buffer.from(new URLSearchParams(v as Record<string, string>).toString()) })));
      } else if (mt === "multipart/form-data") {
        bodies.push(...(this.multipartBodies.get(`${route.method} ${route.template}`) ?? []));
      } else {
        bodies.push({ contentType: mt, bytes: Buffer.from("RIFF\u0000\u0001WAVEfmt ", "latin1") });
      }
    }
    return {
      spec,
      route,
      pathParams: route.parameters.filter((p) => p.in === "path"),
      queryParams: route.parameters.filter((p) => p.in === "query"),
      bodies,
      jsonExamples,
      bodyRequired: rb?.required === true,
      mediaTypes: Object.keys(rb?.content ?? {}),
      jsonSchema,
      success: [...spec.responses.keys()].filter((s) => s >= 200 && s < 300),
      answered: [...spec.responses.keys()].filter((s) => s >= 200 && s < 300).concat(stateful(spec, route, this.references(rb))),
    };
  }

  /** Whether the JSON body's schema (a component, or inline) names other resources by id (`x-references`, LC12). */
  private references(rb: Json): boolean {
    const schema = this.contract.deref(rb?.content?.["application/json"]?.schema);
    return schema !== undefined && JSON.stringify(schema).includes('"x-references"');
  }

  // ---- building blocks -------------------------------------------------------------------------------------

  private examplesOf(p: Json): unknown[] {
    const s = this.contract.deref(p.schema) ?? {};
    return [...(p.schema?.examples ?? []), ...(s.examples ?? []), ...(s.enum ?? []), ...(p.schema?.default !== undefined ? [p.schema.default] : [])];
  }

  /** Arbitraries are built once per parameter and operation: building a stringMatching one is costly. */
  private readonly memo = new Map<unknown, Map<string, fc.Arbitrary<unknown>>>();

  private memoized<T>(owner: unknown, what: string, build: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
    let m = this.memo.get(owner);
    if (!m) this.memo.set(owner, (m = new Map()));
    let a = m.get(what);
    if (!a) m.set(what, (a = build()));
    return a as fc.Arbitrary<T>;
  }

  private validParam(p: Json): fc.Arbitrary<unknown> {
    return this.memoized(p, "value", () => this.buildValidParam(p));
  }

  private buildValidParam(p: Json): fc.Arbitrary<unknown> {
    const s = this.contract.deref(p.schema) ?? {};
    const examples = this.examplesOf(p);
    const fits = (v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
    const fromPattern = typeof s.pattern === "string" ? [fc.stringMatching(new RegExp(s.pattern)).filter(fits)] : [];
    return examples.length ? fc.oneof(fc.constantFrom(...examples), ...fromPattern) : (fromPattern[0] ?? fromSchema(s));
  }

  private validPath(info: OpInfo): fc.Arbitrary<string> {
    return this.memoized(info, "path", () => this.buildValidPath(info));
  }

  private buildValidPath(info: OpInfo): fc.Arbitrary<string> {
    return fc.tuple(...info.pathParams.map((p) => this.validParam(p))).map((values) => fillTemplate(info.spec.template, info.pathParams, values.map((v) => encodeURIComponent(String(v)))));
  }

  /** Required query parameters, plus some optional ones, with valid values. */
  private validQuery(info: OpInfo): fc.Arbitrary<Array<[string, string]>> {
    return this.memoized(info, "query", () => this.buildValidQuery(info));
  }

  private buildValidQuery(info: OpInfo): fc.Arbitrary<Array<[string, string]>> {
    const required = info.queryParams.filter((p) => p.required);
    const optional = info.queryParams.filter((p) => !p.required);
    return fc.tuple(fc.tuple(...required.map((p) => this.validParam(p))), fc.subarray(optional)).chain(([reqValues, opts]) =>
      fc.tuple(...opts.map((p) => this.validParam(p))).map((optValues) => {
        const pairs: Array<[string, string]> = [];
        const add = (p: Json, v: unknown) => (Array.isArray(v) ? v.forEach((x) => pairs.push([p.name, String(x)])) : pairs.push([p.name, String(v)]));
        required.forEach((p, i) => add(p, reqValues[i]));
        opts.forEach((p, i) => add(p, optValues[i]));
        return pairs;
      }),
    );
  }

  private auth(key = this.creds.key): Array<[string, string]> {
    return [["X-API-Key", key]];
  }

  /** The statuses a body may get, worked out from its bytes and the operation's request body (E2, E3). */
  private bodyExpectation(info: OpInfo, contentType: string | null, bytes: Buffer): number[] {
    if (!info.mediaTypes.length) return [...info.success, ...declared4xx(info)];
    if (bytes.length === 0) return info.bodyRequired ? [422] : info.answered;
    const mt = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (!info.mediaTypes.includes(mt)) return [400];
    if (mt !== "application/octet-stream" && bytes.length > this.limits.maxBodyBytes) return [400];
    if (mt !== "application/json" || !info.jsonSchema) return [...info.answered, 400, 422];
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch {
      return [400];
    }
    if (memberCount(value) > this.limits.maxJsonMembers) return [400];
    return info.jsonSchema(value) ? info.answered : [422, ...ruleStatuses(info.jsonSchema.errors ?? [])];
  }

  private request(info: OpInfo, path: string, query: Array<[string, string]>, headers: Array<[string, string]>, body?: BodyVariant): RawRequest {
    const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
    const h = [...headers];
    if (body) h.push(["Content-Type", body.contentType]);
    return { method: info.spec.method.toUpperCase(), path: qs ? `${path}?${qs}` : path, headers: h, body: body?.bytes ?? null };
  }

  // ---- the kinds of case -----------------------------------------------------------------------------------

  private op(filter: (o: OpInfo) => boolean = () => true): fc.Arbitrary<OpInfo> {
    const list = this.ops.filter(filter);
    return fc.constantFrom(...list);
  }

  /** A valid request of any operation (WebSocket ones included: a plain GET of them). */
  valid(): fc.Arbitrary<FuzzCase> {
    return this.op().chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), info.bodies.length ? fc.constantFrom(...info.bodies) : fc.constant(undefined)).map(([path, query, body]) => {
        const req = this.request(info, path, query, this.auth(), body);
        const expect = info.spec.webSocket ? [426] : info.answered;
        return { kind: "valid", req, expect: [...expect, ...(info.spec.op.security?.length === 0 ? [] : [429])] };
      }),
    );
  }

  /** A valid JSON body with one field (at any depth) removed, nulled, retyped, enlarged or added. */
  mutatedBody(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.jsonExamples.length > 0).chain((info) =>
      fc
        .tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...info.jsonExamples), fc.nat(), fc.constantFrom(...MUTATIONS), fc.jsonValue({ maxDepth: 2 }))
        .map(([path, query, example, pick, mutation, any]) => {
          const value = structuredClone(example);
          const spots = fieldsOf(value);
          const [parent, key] = spots[pick % spots.length] ?? [null, null];
          const label = mutate(value, parent, key, mutation, any);
          const body = { contentType: "application/json", bytes: Buffer.from(JSON.stringify(value) ?? "") };
          return { kind: `mutated:${label}`, req: this.request(info, path, query, this.auth(), body), expect: [...this.bodyExpectation(info, body.contentType, body.bytes), 429] };
        }),
    );
  }

  /** A valid JSON body made unparseable: cut short, a stray character, single quotes, deep nesting, a BOM... */
  malformedJson(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.jsonExamples.length > 0).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...info.jsonExamples), fc.nat(), fc.constantFrom(...BREAKAGES), fc.integer({ min: 1, max: 200_000 })).map(([path, query, example, at, breakage, depth]) => {
        const text = JSON.stringify(example);
        const broken = breakage(text, at % Math.max(1, text.length), depth);
        const body = { contentType: "application/json", bytes: Buffer.from(broken, "utf8") };
        return { kind: "malformed-json", req: this.request(info, path, query, this.auth(), body), expect: [...this.bodyExpectation(info, body.contentType, body.bytes), 429] };
      }),
    );
  }

  /** A valid body under a content type the operation does not take (or a missing one). */
  wrongContentType(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.bodies.length > 0).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...info.bodies), fc.option(fc.constantFrom(...WRONG_CONTENT_TYPES), { nil: null })).map(([path, query, body, ct]) => {
        const req = this.request(info, path, query, this.auth());
        if (ct !== null) req.headers!.push(["Content-Type", utf8Bytes(ct)]);
        req.body = body.bytes;
        return { kind: "wrong-content-type", req, expect: [...this.bodyExpectation(info, ct, body.bytes), 429] };
      }),
    );
  }

  /**
   * A body declared (Content-Length) or streamed (chunked) beyond the limit. Only a prefix of a declared body is
   * sent: the gateway must answer without waiting for (or buffering) the rest.
   */
  hugeBody(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.bodies.length > 0).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...info.bodies), fc.integer({ min: 1, max: 2 ** 40 }), fc.boolean()).map(([path, query, body, over, chunked]) => {
        const raw = body.contentType === "application/octet-stream";
        const limit = raw ? this.limits.maxUploadBytes : this.limits.maxBodyBytes;
        const req = this.request(info, path, query, this.auth(), body);
        // Streaming past the limit is only affordable when the limit is small (the fuzz run lowers it).
        if (chunked && limit <= 4 << 20) {
          req.chunked = true;
          req.body = Buffer.alloc(limit + 1 + (over % 65536), "a");
        } else {
          req.declaredLength = limit + over;
          req.body = body.bytes.subarray(0, 1024);
        }
        return { kind: req.chunked ? "huge-body:chunked" : "huge-body:declared", req, expect: [400, 429] };
      }),
    );
  }

  /**
   * A body sent to an API operation that takes none, small or declared as a GiB: refused with 400 before it is
   * read (decision G21), whatever the operation answers otherwise. (The gateway's public documents answer as usual
   * and close the connection.)
   */
  unwantedBody(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.mediaTypes.length === 0 && o.spec.op.security?.length !== 0).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), fc.constantFrom("application/json", "text/plain", null), fc.boolean()).map(([path, query, ct, huge]) => {
        const req = this.request(info, path, query, this.auth());
        if (ct !== null) req.headers!.push(["Content-Type", ct]);
        req.body = Buffer.from("{}");
        if (huge) req.declaredLength = 2 ** 30;
        return { kind: huge ? "unwanted-body:declared" : "unwanted-body", req, expect: [400, 429] };
      }),
    );
  }

  /** A path no operation has, under the API's prefixes or outside them. */
  unknownPath(): fc.Arbitrary<FuzzCase> {
    const prefix = fc.constantFrom("/v1", "/aria", "/ws", "/v2", "/V1", "", "/v1/", "//v1", "/%76%31");
    const segment = fc.oneof(fc.webSegment(), fc.constantFrom(...NASTY_SEGMENTS), fc.string({ maxLength: 12 }).map(encodeURIComponent));
    return fc.tuple(prefix, fc.array(segment, { minLength: 0, maxLength: 5 }), fc.constantFrom(...METHODS), fc.boolean()).map(([p, segs, method, authed]) => {
      const path = (p + "/" + segs.join("/")).replace(/^(?!\/)/, "/");
      return { kind: "unknown-path", req: { method, path, headers: authed ? this.auth() : [] } };
    });
  }

  /** A method the path does not have. */
  unknownMethod(): fc.Arbitrary<FuzzCase> {
    return this.op().chain((info) =>
      fc.tuple(this.validPath(info), fc.constantFrom(...METHODS)).map(([path, method]) => ({ kind: "unknown-method", req: { method, path, headers: this.auth() } })),
    );
  }

  /** Traversal and encoding tricks in the ids of the path: never a success. */
  pathTraversal(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.pathParams.length > 0).chain((info) =>
      fc.tuple(this.validPath(info), fc.nat(), fc.oneof(fc.constantFrom(...NASTY_SEGMENTS), fc.string({ maxLength: 30 }).map(encodeURIComponent))).map(([path, which, nasty]) => {
        const segs = path.split("/");
        const paramIdx = info.spec.template
          .split("/")
          .map((s, i) => (/^\{.+\}$/.test(s) ? i : -1))
          .filter((i) => i >= 0);
        segs[paramIdx[which % paramIdx.length]!] = nasty;
        const req = { method: info.spec.method.toUpperCase(), path: segs.join("/"), headers: this.auth() };
        return { kind: "path-traversal", req, expect: [400, 404, 405, 422, 426, 429] };
      }),
    );
  }

  /** Invalid query values (and unknown parameters): never a 5xx, only declared statuses. */
  oddQuery(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => o.queryParams.length > 0).chain((info) =>
      fc
        .tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...info.queryParams.map((p) => p.name), "__proto__", "constructor", "token", "unknown_param"), fc.oneof(fc.constantFrom(...NASTY_VALUES), fc.string()), fc.boolean())
        .map(([path, query, name, value, raw]) => {
          const qs = [...query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`), `${name}=${raw ? value.replace(/[^\x21-\x7e]/gu, encodeURIComponent) : encodeURIComponent(value)}`].join("&");
          const body = info.bodies[0];
          const req: RawRequest = { method: info.spec.method.toUpperCase(), path: `${path}?${qs}`, headers: [...this.auth(), ...(body ? [["Content-Type", body.contentType] as [string, string]] : [])], body: body?.bytes ?? null };
          return { kind: "odd-query", req };
        }),
    );
  }

  /** A valid request with odd headers: duplicates, non-ASCII values, long values, unusual Accept and Expect. */
  oddHeaders(): fc.Arbitrary<FuzzCase> {
    const odd = fc.constantFrom<Array<[string, string]>>(
      [["X-API-Key", this.creds.key], ["X-API-Key", this.creds.key]],
      [["X-API-Key", this.creds.key], ["X-API-Key", "pk_test_other_0000"]],
      [["Authorization", `Bearer ${this.creds.validJwt}`], ["Authorization", "Bearer x"]],
      [["X-API-Key", utf8Bytes("pk_test_ünïcødé_✓")]],
      [["Accept", "text/html"]],
      [["Accept", "application/xml, */*;q=0"]],
      [["Accept", utf8Bytes("application/jsön")]],
      [["Prefer", utf8Bytes("code=ü, example=✓")]],
      [["Prefer", "code=4044"]],
      [["Last-Event-ID", utf8Bytes("evt_✓✓✓✓✓✓✓✓")]],
      [["User-Agent", utf8Bytes("クライアント/1.0")]],
      [["X-Forwarded-For", "999.999.999.999, ::1, garbage"]],
      [["X-Long", "a".repeat(8000)]],
      [["Content-Encoding", "gzip"]],
      [["Expect", "100-continue"]],
      [["Expect", "the-unexpected"]],
      [["Connection", "close"]],
      [["Cookie", "session=" + "b".repeat(1000)]],
      [["Host", "evil.example"]],
      [["Host", utf8Bytes("hôst")]],
      [["Origin", "null"]],
      [["Content-Type", "application/json"], ["Content-Type", "text/plain"]],
    );
    return this.op((o) => !o.spec.webSocket).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), info.bodies.length ? fc.constantFrom(...info.bodies) : fc.constant(undefined), odd).map(([path, query, body, extra]) => {
        const replacesAuth = extra.some(([k]) => /^(x-api-key|authorization)$/i.test(k));
        const req = this.request(info, path, query, replacesAuth ? [] : this.auth(), body);
        req.headers!.push(...extra);
        return { kind: `odd-headers:${extra[0]![0]}`, req };
      }),
    );
  }

  /** Missing, unknown, malformed, expired or forged credentials, wherever they may (not) be put. */
  badCredentials(): fc.Arbitrary<FuzzCase> {
    const c = this.creds;
    const variants = fc.constantFrom<{ h: Array<[string, string]>; q?: string }>(
      { h: [] },
      { h: [["X-API-Key", "pk_test_unknown_key_0000"]] },
      { h: [["X-API-Key", "sk_live_wrong_prefix"]] },
      { h: [["X-API-Key", ""]] },
      { h: [["Authorization", `Bearer ${c.expiredJwt}`]] },
      { h: [["Authorization", `Bearer ${c.forgedJwt}`]] },
      { h: [["Authorization", "Bearer not.a.jwt"]] },
      { h: [["Authorization", `Basic ${Buffer.from("user:" + c.key).toString("base64")}`]] },
      { h: [["Authorization", c.key]] },
      { h: [], q: `token=${c.key}` },
      { h: [], q: `token=${c.forgedJwt}` },
    );
    return this.op((o) => o.spec.op.security?.length !== 0 && !o.spec.webSocket).chain((info) =>
      fc.tuple(this.validPath(info), variants).map(([path, v]) => {
        const streaming = info.route.tokenQuery !== null && v.q?.startsWith("token=") && !v.q.includes(c.forgedJwt);
        return { kind: "bad-credentials", req: { method: info.spec.method.toUpperCase(), path: v.q ? `${path}?${v.q}` : path, headers: v.h }, expect: streaming ? [...info.answered, 422, 429] : [401, 429] };
      }),
    );
  }

  /** Any documented response, asked for with Prefer: code=…, answered with exactly that status. */
  preferred(): fc.Arbitrary<FuzzCase> {
    return this.op((o) => !o.spec.webSocket && o.spec.op.security?.length !== 0).chain((info) =>
      fc.tuple(this.validPath(info), this.validQuery(info), fc.constantFrom(...[...info.spec.responses.keys()].filter((s) => s !== 101))).map(([path, query, code]) => {
        const req = this.request(info, path, query, [...this.auth(), ["Prefer", `code=${code}`]], info.bodies[0]);
        return { kind: "prefer", req, expect: [code, 429], preferCode: code };
      }),
    );
  }

  /** The same valid requests with a key of a couple of requests per minute: mostly 429s. */
  rateLimited(): fc.Arbitrary<FuzzCase> {
    return this.valid().map((c) => {
      const headers = c.req.headers!.map(([k, v]) => (k === "X-API-Key" ? (["X-API-Key", this.creds.tightKey] as [string, string]) : ([k, v] as [string, string])));
      return { ...c, kind: "rate-limited", req: { ...c.req, headers } };
    });
  }

  /** CORS preflights, with odd Access-Control-Request-Headers. */
  preflight(): fc.Arbitrary<FuzzCase> {
    return fc.tuple(this.op(), fc.array(fc.oneof(fc.constantFrom("X-API-Key", "content-type", "X-Custom", utf8Bytes("X-Ünï"), "a b", "x,,y", "", "\t"), fc.string({ maxLength: 10 })), { maxLength: 4 })).map(([info, names]) => ({
      kind: "preflight",
      req: {
        method: "OPTIONS",
        path: info.spec.template.replace(/\{[^}]+\}/g, "x"),
        headers: [
          ["Origin", "http://localhost:3000"],
          ["Access-Control-Request-Method", "POST"],
          ["Access-Control-Request-Headers", headerSafe(names.join(", "))],
        ] as Array<[string, string]>,
      },
      preflight: true,
    }));
  }

  /**
   * Requests that are not valid HTTP/1.1 (and CONNECT): refused with a 400 (405) carrying the contract's error body,
   * or a 429 once the anonymous bucket of the address is spent (decision G26).
   */
  malformedHttp(): fc.Arbitrary<FuzzCase> {
    const k = this.creds.key;
    const req = (lines: string[], body = "") => Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1"), Buffer.from(body)]);
    return fc
      .constantFrom(
        req(["GET /v1/analyses HTTP/1.1", "Host: x", utf8Bytes("X-Nämé: 1"), `X-API-Key: ${k}`]),
        req(["POST /v1/speakers HTTP/1.1", "Host: x", "Content-Length: 2", "Content-Length: 3", `X-API-Key: ${k}`], "{}"),
        req(["POST /v1/speakers HTTP/1.1", "Host: x", "Content-Length: 2", "Transfer-Encoding: chunked", `X-API-Key: ${k}`], "{}"),
        req(["GET /v1/analyses HTTP/1.1", "Host: x", "X-Folded: a", " b", `X-API-Key: ${k}`]),
        req(["GET /v1/analyses HTTP/1.1", "Host: x", "NoColonHere", `X-API-Key: ${k}`]),
        req(["GET /v1/analyses HTTP/1.1", `X-API-Key: ${k}`]),
        req(["GET /v1/analyses HTTP/1.1", "Host: x", "X-Big: " + "h".repeat(20_000), `X-API-Key: ${k}`]),
        req(["FOO /v1/analyses HTTP/1.1", "Host: x", `X-API-Key: ${k}`]),
        req(["GET /v1/analyses HTTP/9.9", "Host: x", `X-API-Key: ${k}`]),
        req(["GET /v1/ana lyses HTTP/1.1", "Host: x", `X-API-Key: ${k}`]),
        req(["CONNECT 127.0.0.1:22 HTTP/1.1", "Host: 127.0.0.1:22", `X-API-Key: ${k}`]),
        req(["GET /v1/analyses HTTP/1.1", "Host: x", `X-API-Key: ${k}`, "X-Nul: a\u0000b"]),
      )
      .map((wire) => {
        const method = wire.toString("latin1").split(" ")[0]!;
        return { kind: "malformed-http", req: { method, path: wire.toString("latin1").split(" ")[1] ?? "/" }, wire, expect: method === "CONNECT" ? [405] : [400, 429] };
      });
  }

  /** Every kind, weighted so valid and body cases dominate. */
  any(): fc.Arbitrary<FuzzCase> {
    return fc.oneof(
      { weight: 20, arbitrary: this.valid() },
      { weight: 14, arbitrary: this.mutatedBody() },
      { weight: 8, arbitrary: this.malformedJson() },
      { weight: 6, arbitrary: this.wrongContentType() },
      { weight: 3, arbitrary: this.hugeBody() },
      { weight: 2, arbitrary: this.unwantedBody() },
      { weight: 6, arbitrary: this.unknownPath() },
      { weight: 5, arbitrary: this.unknownMethod() },
      { weight: 7, arbitrary: this.pathTraversal() },
      { weight: 6, arbitrary: this.oddQuery() },
      { weight: 8, arbitrary: this.oddHeaders() },
      { weight: 5, arbitrary: this.badCredentials() },
      { weight: 4, arbitrary: this.preferred() },
      { weight: 4, arbitrary: this.rateLimited() },
      { weight: 2, arbitrary: this.preflight() },
      { weight: 2, arbitrary: this.malformedHttp() },
    );
  }
}

/**
 * The statuses a well-formed request may get from the state the mock keeps (keys, webhooks, tokens, resources),
 * where the operation declares them: 403 (a permission rule: a `pk_test_` key creating a `live` key), 404 (an id
 * the workspace does not have), 409 (a conflict: a 21st webhook, a revoked key), and 400 where the operation's
 * description states a rule no schema can (decision E2: it "answers 400"), it takes a `cursor` (one the list
 * never gave out, such as the contract's example cursor, answers 400), or its body names other resources by id
 * (`x-references`: one the workspace does not have, or no longer has, answers 400).
 */
function stateful(spec: OpSpec, route: Route, references: boolean): number[] {
  const declared = [403, 404, 409].filter((s) => spec.responses.has(s));
  const rule = references || /answers 400/.test(String(spec.op.description ?? "")) || route.parameters.some((p) => p.in === "query" && p.name === "cursor");
  return rule && spec.responses.has(400) ? [...declared, 400] : declared;
}

function declared4xx(info: OpInfo): number[] {
  return [...info.spec.responses.keys()].filter((s) => s >= 400 && s < 500);
}

function fillTemplate(template: string, params: Json[], values: string[]): string {
  let out = template;
  params.forEach((p, i) => (out = out.replace(`{${p.name}}`, values[i]!)));
  return out;
}

type Container = Record<string, unknown> | unknown[];

/** Every (container, key) of a JSON value, depth first; the root object itself as (null, null). */
function fieldsOf(value: unknown): Array<[Container | null, string | number | null]> {
  const out: Array<[Container | null, string | number | null]> = [[null, null]];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (out.push([v, i]), walk(x)));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.push([v as Container, k]), walk(x);
  };
  walk(value);
  return out;
}

const MUTATIONS = ["delete", "null", "wrong-type", "huge-string", "unicode", "negative", "empty", "unknown-property", "proto-key", "any"] as const;

function mutate(root: unknown, parent: Container | null, key: string | number | null, m: (typeof MUTATIONS)[number], any: unknown): string {
  const target = (parent === null ? root : (parent as Record<string | number, unknown>)[key!]) as unknown;
  const set = (v: unknown) => {
    if (parent !== null) (parent as Record<string | number, unknown>)[key!] = v;
  };
  switch (m) {
    case "delete":
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else if (parent) delete (parent as Record<string, unknown>)[key as string];
      break;
    case "null":
      set(null);
      break;
    case "wrong-type":
      set(typeof target === "string" ? 42 : typeof target === "number" ? String(target) : Array.isArray(target) ? { a: target } : typeof target === "object" ? [target] : "true");
      break;
    case "huge-string":
      set("x".repeat(600_000));
      break;
    case "unicode":
      set("\u0000\u202e\ud83d\ude80 Ω ﷽ \u0007");
      break;
    case "negative":
      set(-1e308);
      break;
    case "empty":
      set(Array.isArray(target) ? [] : typeof target === "object" && target ? {} : "");
      break;
    case "unknown-property":
    case "proto-key": {
      const obj = target && typeof target === "object" && !Array.isArray(target) ? (target as Record<string, unknown>) : root && typeof root === "object" && !Array.isArray(root) ? (root as Record<string, unknown>) : null;
      // JSON.parse makes "__proto__" an own property, so it is added the same way here.
      if (obj) Object.defineProperty(obj, m === "proto-key" ? "__proto__" : "unexpected_field", { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
      break;
    }
    case "any":
      set(any);
      break;
  }
  return m;
}

type Breakage = (text: string, at: number, depth: number) => string;

const BREAKAGES: Breakage[] = [
  (t, at) => t.slice(0, Math.max(1, at)), // cut short
  (t, at) => t.slice(0, at) + "}" + t.slice(at),
  (t, at) => t.slice(0, at) + "'" + t.slice(at),
  (t, at) => t.slice(0, at) + "\\" + t.slice(at),
  (t, at) => t.slice(0, at) + "\u0000" + t.slice(at),
  (t, at) => t.slice(0, at) + "\ud800" + t.slice(at), // a lone surrogate: U+FFFD once encoded
  (t) => t.replace(/"/g, "'"),
  (t) => t.replace(/}$/, ",}"),
  (t) => "\ufeff" + t,
  (t) => t + t,
  (t) => `/* comment */ ${t}`,
  (t) => t.replace(/:\s*(-?\d+(\.\d+)?)/, ": NaN"),
  (_t, _at, depth) => "[".repeat(depth) + "]".repeat(depth),
  (_t, _at, depth) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth),
  (_t, _at, depth) => "[".repeat(depth), // deep and unterminated
  () => "1e999999",
  () => "",
];

/**
 * The statuses of the contract's `x-status` rules among a body's violations (spec/README.md: a conditional
 * subschema carrying `x-status: 400` is answered with that status when it is all that is wrong; seed 1475861553
 * expected 422 where `signals` without `use_case_id` is such a rule). Read from the schema ajv reports, not from
 * the mock's code.
 */
function ruleStatuses(errors: ReadonlyArray<{ keyword: string; parentSchema?: unknown }>): number[] {
  return errors.flatMap((e) => {
    const status = (e.parentSchema as Record<string, unknown> | undefined)?.["x-status"];
    return e.keyword === "if" && typeof status === "number" ? [status] : [];
  });
}
