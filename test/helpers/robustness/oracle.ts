// What the contract allows as an answer to a request, checked against an actual response. Independent of the
// gateway's own router and validators: routes are matched here from the contract's path templates (literal
// segments win over `{param}` ones), statuses come from each operation's `responses`, bodies are validated with
// ajv (JSON Schema 2020-12) against the declared response schema, and headers against the declared, required
// response headers. Used by the fuzz test, `npm run fuzz`, and the other robustness tests.
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { Contract, Json } from "../../../src/mock/core/contract/contract-build.js";
import { componentSchemaId, createContractAjv } from "../../../src/mock/core/contract/validation.js";
import { header, type RawResponse } from "./http.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

interface ResponseSpec {
  /** Required headers the contract declares for this response. */
  headers: string[];
  /** Validator of the application/json body, if the response declares one. */
  json: ValidateFunction | null;
  mediaTypes: string[];
}

export interface OpSpec {
  method: string;
  template: string;
  op: Json;
  responses: Map<number, ResponseSpec>;
  /** A WebSocket operation (documented success 101). */
  webSocket: boolean;
}

interface TemplateSpec {
  template: string;
  segments: Array<string | null>; // null: a {param} segment
  ops: Map<string, OpSpec>;
}

export type RouteMatch = { kind: "op"; spec: OpSpec } | { kind: "method"; allow: string[]; template: string } | { kind: "none" };

/** Deviations the gateway makes on purpose and the contract does not declare, listed here so they stay visible. */
export const UNDECLARED_BUT_KNOWN = {
  /**
   * A `Prefer` header asking for a response the operation does not have (a mock-only feature): 400, its detail
   * listing what the operation documents (test/mock/homes/node/gateway.test.ts pins it). Operations without query parameters
   * or a body do not declare 400.
   */
  unknownPreference: 400,
} as const;

export class ContractOracle {
  readonly templates: TemplateSpec[] = [];
  readonly rateHeaders: string[];
  readonly errorSchema: ValidateFunction;
  /** The 429 body (RateLimitError). */
  readonly rateLimitSchema: ValidateFunction;
  readonly rateLimitedPrefixes: string[];

  constructor(readonly contract: Contract) {
    const ajv = createContractAjv(contract, false);
    const base = componentSchemaId("");
    const compile = (schema: Json): ValidateFunction =>
      ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}`)));
    const p = contract.policy.headers;
    this.rateHeaders = [p.limit, p.remaining, p.reset, p.daily_limit, p.daily_remaining];
    this.errorSchema = ajv.getSchema(componentSchemaId("Error"))!;
    this.rateLimitSchema = ajv.getSchema(componentSchemaId("RateLimitError"))!;
    const prefixes = new Set<string>();
    const schemaCache = new Map<string, ValidateFunction>();
    for (const [template, rawItem] of Object.entries<Json>(contract.doc.paths ?? {})) {
      const item = contract.deref(rawItem);
      const t: TemplateSpec = { template, segments: template.split("/").slice(1).map((s) => (/^\{.+\}$/.test(s) ? null : s)), ops: new Map() };
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const responses = new Map<number, ResponseSpec>();
        for (const [code, rawResponse] of Object.entries<Json>(op.responses ?? {})) {
          const r = contract.deref(rawResponse);
          const headers = Object.entries<Json>(r.headers ?? {})
            .filter(([, h]) => contract.deref(h)?.required === true)
            .map(([name]) => name);
          const schema = r.content?.["application/json"]?.schema;
          let json: ValidateFunction | null = null;
          if (schema) {
            const key = JSON.stringify(schema);
            json = schemaCache.get(key) ?? compile(schema);
            schemaCache.set(key, json);
          }
          responses.set(Number(code), { headers, json, mediaTypes: Object.keys(r.content ?? {}) });
          if (headers.includes(p.limit)) prefixes.add("/" + template.split("/")[1]);
        }
        t.ops.set(method, { method, template, op, responses, webSocket: responses.has(101) });
      }
      this.templates.push(t);
    }
    this.rateLimitedPrefixes = [...prefixes];
  }

  get operations(): OpSpec[] {
    return this.templates.flatMap((t) => [...t.ops.values()]);
  }

  isRateLimitedPath(pathname: string): boolean {
    return this.rateLimitedPrefixes.some((p) => pathname === p || pathname.startsWith(p + "/"));
  }

  /** The operation a request path and method select, by the contract's templates alone. */
  match(method: string, pathname: string): RouteMatch {
    const segs = pathname.split("/").slice(1);
    let best: TemplateSpec | null = null;
    for (const t of this.templates) {
      if (t.segments.length !== segs.length) continue;
      if (!t.segments.every((s, i) => (s === null ? segs[i] !== "" : s === segs[i]))) continue;
      // Of two templates that both match, the one with a literal segment where the other has a parameter wins.
      if (!best || moreLiteral(t, best)) best = t;
    }
    if (!best) return { kind: "none" };
    // HEAD is GET without the body (RFC 9110 §9.3.2): the gateway's own paths answer it; under /v1 it is a 405.
    const head = method.toUpperCase() === "HEAD" && !this.isRateLimitedPath(pathname) ? best.ops.get("get") : undefined;
    const spec = head ?? best.ops.get(method.toLowerCase());
    return spec ? { kind: "op", spec } : { kind: "method", allow: [...best.ops.keys()].map((m) => m.toUpperCase()), template: best.template };
  }

  /**
   * Everything wrong with `res` as an answer to `method path`. `expect` narrows the allowed statuses further
   * (e.g. a malformed body must get 400 or 429); `preferCode` is a status the request asked for with Prefer.
   */
  check(method: string, path: string, res: RawResponse, o: { expect?: readonly number[]; preferCode?: number; preflight?: boolean; prefer?: boolean } = {}): string[] {
    const problems: string[] = [];
    const pathname = path.split("?")[0]!;
    const limited = this.isRateLimitedPath(pathname);
    const m = this.match(method, pathname);
    if (o.expect && !o.expect.includes(res.status)) problems.push(`status ${res.status}, expected one of ${o.expect.join(", ")}`);
    if (res.status >= 500 && res.status !== o.preferCode) problems.push(`status ${res.status}: the gateway failed (${res.body.toString("utf8").slice(0, 200)})`);

    if (o.preflight) {
      if (res.status !== 204) problems.push(`CORS preflight answered ${res.status}, not 204`);
      return problems;
    }

    let declared: ResponseSpec | undefined;
    if (m.kind === "op") {
      declared = m.spec.responses.get(res.status);
      const known = o.prefer && res.status === UNDECLARED_BUT_KNOWN.unknownPreference;
      if (!declared && !known) {
        problems.push(`status ${res.status} is not declared for ${m.spec.method.toUpperCase()} ${m.spec.template} (declared: ${[...m.spec.responses.keys()].join(", ")})`);
      }
    } else {
      // No operation: 404 for an unknown path, 405 for an unknown method; under /v1, /aria and /ws the gateway
      // authenticates and counts first (decision M3), so 401, 403 and 429 come before them.
      const routeStatus = m.kind === "none" ? [404] : limited ? [405] : [404, 405];
      const home = pathname === "/" && /^(GET|HEAD)$/i.test(method); // redirects to /swagger.html
      // The gateway's own pages (`/`, the viewer's assets) answer any other method 405 with `Allow: GET, HEAD`.
      const ownPage = pathname === "/" || pathname.startsWith("/swagger-ui/");
      const allowed = limited ? [...routeStatus, 401, 403, 429] : home ? [302] : ownPage ? [405] : routeStatus;
      if (!allowed.includes(res.status)) problems.push(`status ${res.status} for ${m.kind === "none" ? "an unknown path" : "an unknown method"}; expected ${allowed.join(" or ")}`);
      if (res.status === 405 && ownPage && header(res, "allow") !== "GET, HEAD") problems.push(`405 Allow is "${header(res, "allow")}" on the gateway's own page, expected GET, HEAD`);
      if (res.status === 405 && m.kind === "method") {
        const allow = (header(res, "allow") ?? "").split(/,\s*/).sort();
        // The gateway's own paths (health, the description, the viewer) serve HEAD wherever they serve GET.
        const expected = !limited && m.allow.includes("GET") && !m.allow.includes("HEAD") ? [...m.allow, "HEAD"] : [...m.allow];
        if (allow.join() !== expected.sort().join()) problems.push(`405 Allow is "${header(res, "allow")}", expected ${expected.join(", ")}`);
      }
    }

    // Body.
    const isJson = /^application\/(.+\+)?json\b/i.test(header(res, "content-type") ?? "");
    const noBody = method.toUpperCase() === "HEAD" || res.status === 204 || res.status === 302 || res.status === 101;
    if (res.status >= 400 && !noBody) {
      if (!isJson) problems.push(`error ${res.status} has Content-Type ${header(res, "content-type") ?? "(none)"}, not JSON`);
      const validate = declared?.json ?? this.errorSchema;
      problems.push(...this.validateBody(res, validate, `error ${res.status}`));
    } else if (declared?.json && isJson && !noBody) {
      problems.push(...this.validateBody(res, declared.json, `${res.status} body`));
    }

    // Headers: the declared required ones (the five X-RateLimit-* and, on 429, Retry-After).
    const required = declared ? declared.headers : limited ? [...this.rateHeaders, ...(res.status === 429 ? [this.contract.policy.headers.retry_after] : [])] : [];
    for (const name of required) {
      const v = header(res, name);
      if (v === undefined) problems.push(`${res.status} lacks the ${name} header`);
      else if ((this.rateHeaders.includes(name) || name === this.contract.policy.headers.retry_after) && !/^\d+$/.test(v)) problems.push(`${name} is "${v}", not an integer`);
    }
    return problems;
  }

  private validateBody(res: RawResponse, validate: ValidateFunction, what: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(res.body.toString("utf8"));
    } catch {
      return [`${what}: body is not JSON: ${JSON.stringify(res.body.toString("utf8").slice(0, 120))}`];
    }
    if (validate(value)) return [];
    const errs = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message}`);
    return [`${what}: body does not validate: ${errs.join("; ")} — ${JSON.stringify(value).slice(0, 200)}`];
  }
}

function moreLiteral(a: TemplateSpec, b: TemplateSpec): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const x = a.segments[i] !== null;
    const y = b.segments[i] !== null;
    if (x !== y) return x;
  }
  return false;
}
