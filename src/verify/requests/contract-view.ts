// What the checks ask of the contract, answered once and cached: the declared response of a status (exact code,
// `4XX` range or `default`), compiled validators of response bodies and headers (ajv, JSON Schema 2020-12, the
// mock's `createContractAjv`, so ids and formats are the same as the gateway's), the rate-limit policy and the
// credential names. Nothing here knows about the command line or the network.
import { readRequestId, type RequestIdPolicy } from "../../contract/request-id.js";
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import type { Contract, Json } from "../../mock/core/contract/contract-build.js";
import { componentSchemaId, createContractAjv, RequestValidator } from "../../mock/core/contract/validation.js";
import type { RateLimitPolicy } from "../../contract/policy.js";
import type { Operation } from "../types.js";

export interface DeclaredResponse {
  /** The key it is declared under: `200`, `4XX` or `default`. */
  key: string;
  headers: Record<string, Json>;
  content: Record<string, Json>;
}

const views = new WeakMap<Contract, ContractView>();

export class ContractView {
  /** The view of a contract, made once per process: its compiled validators serve every run (it holds no run state). */
  static of(contract: Contract): ContractView {
    let v = views.get(contract);
    if (!v) views.set(contract, (v = new ContractView(contract)));
    return v;
  }

  readonly operations: Operation[];
  readonly policy: RateLimitPolicy;
  /** The five per-minute and daily headers, named as the policy names them. */
  readonly rateHeaders: string[];
  readonly retryAfterHeader: string;
  /** The root's `x-request-id`: the header every answer carries, echoed when it fits its bounds. */
  readonly requestId: RequestIdPolicy;
  /** The header of the API-key scheme (`X-API-Key`). */
  readonly apiKeyHeader: string;
  readonly requestValidator: RequestValidator;
  private readonly strictAjv: Ajv2020;
  private readonly coercingAjv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly contract: Contract) {
    this.operations = contract.router.routes;
    this.policy = contract.policy;
    const h = this.policy.headers;
    this.rateHeaders = [h.limit, h.remaining, h.reset, h.daily_limit, h.daily_remaining];
    this.retryAfterHeader = h.retry_after;
    this.requestId = readRequestId(contract.doc);
    const schemes = Object.values<Json>(contract.doc.components?.securitySchemes ?? {});
    this.apiKeyHeader = schemes.find((s) => s.type === "apiKey" && s.in === "header")?.name ?? "X-API-Key";
    this.requestValidator = new RequestValidator(contract);
    this.strictAjv = createContractAjv(contract, false);
    this.coercingAjv = createContractAjv(contract, true);
  }

  /** The response the operation declares for `status`: the exact code, else its `NXX` range, else `default`. */
  declared(op: Operation, status: number): DeclaredResponse | undefined {
    const responses: Record<string, Json> = op.op.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, "default"].find((k) => responses[k] !== undefined);
    if (key === undefined) return undefined;
    const r = this.contract.deref(responses[key]) ?? {};
    return { key, headers: r.headers ?? {}, content: r.content ?? {} };
  }

  /** The statuses an operation declares, as written (`200`, `4XX`, `default`). */
  declaredKeys(op: Operation): string[] {
    return Object.keys(op.op.responses ?? {});
  }

  /** A validator of a body schema (strict: JSON is validated as parsed). */
  bodyValidator(schema: Json): ValidateFunction {
    return this.compile(this.strictAjv, schema);
  }

  /** A validator of a header's schema; header values are strings, coerced to the declared type first. */
  headerValidator(schema: Json): ValidateFunction {
    return this.compile(this.coercingAjv, schema ?? {});
  }

  /** The component schema `name` (e.g. `Error`), or undefined if the contract has none. */
  componentValidator(name: string): ValidateFunction | undefined {
    return this.strictAjv.getSchema(componentSchemaId(name));
  }

  private compile(ajv: Ajv2020, schema: Json): ValidateFunction {
    const text = JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${componentSchemaId("")}`);
    const key = (ajv === this.strictAjv ? "s" : "c") + text;
    let v = this.validators.get(key);
    if (!v) this.validators.set(key, (v = ajv.compile(JSON.parse(text))));
    return v;
  }

  /** Path parameters of a URL path by the operation's template (null when the path does not fit it). */
  pathParams(op: Operation, pathname: string): Record<string, string> | null {
    const want = op.template.split("/");
    const got = pathname.split("/");
    if (want.length !== got.length) return null;
    const out: Record<string, string> = {};
    for (let i = 0; i < want.length; i++) {
      const m = /^\{(.+)\}$/.exec(want[i]!);
      if (m) out[m[1]!] = safeDecode(got[i]!);
      else if (want[i] !== got[i]) return null;
    }
    return out;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Does a declared media type (or range, `text/*`, `*\/*`) cover `mt`? */
export function mediaTypeCovers(declared: string, mt: string): boolean {
  const d = declared.toLowerCase();
  if (d === mt || d === "*/*") return true;
  const [type, sub] = d.split("/");
  return sub === "*" && mt.startsWith(type + "/");
}

/** JSON or a `+json` media type. */
export function isJsonMediaType(mt: string): boolean {
  return mt === "application/json" || /^application\/[\w.+-]+\+json$/.test(mt);
}
