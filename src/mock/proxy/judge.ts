// Judges one proxied exchange against the contract once it is over: the request by the mock's RequestValidator
// (through the verifier's request facts: one reading of the request schemas for the gateway, the verifier and
// this), the response by the verifier's own checks (`checkExchange`), and a request no operation describes as
// `undocumented-operation`. What it finds goes to the violation list; the traffic has long gone on unchanged.
//
// Not judged: `rate-limit-semantics` (it assumes exchanges in the order the backend counted them, which
// concurrent live traffic does not give), `lifecycle-observed` (likewise: two reads answered out of order would show a
// state going back; `use-after-delete` too: a read begun before a delete may be answered after it) and
// `crud-roundtrip` (it needs the verifier's scripted steps). A body
// the proxy did not keep whole (over the copy limit, or cut off) is not judged; the checks that read it are left
// out for that exchange and the log says so.
import type { IncomingHttpHeaders } from "node:http";
import zlib from "node:zlib";
import { checkExchange, createChecks } from "../../verify/checks/index.js";
import { ContractView, isJsonMediaType, mediaTypeOf } from "../../verify/requests/contract-view.js";
import type { Check, ExchangeResponse, RequestFacts } from "../../verify/types.js";
import type { Contract } from "../core/contract/contract-build.js";
import type { LogSink } from "../core/pipeline/log.js";
import { redact } from "../core/pipeline/log.js";
import type { BodyCopy, Keep } from "./body-copy.js";
import { toHeaders } from "./headers.js";
import type { Finding, ViolationList } from "./violations.js";

/** One exchange as the proxy saw it. */
export interface Observed {
  method: string;
  /** Path and query as received. */
  target: string;
  pathname: string;
  headers: IncomingHttpHeaders;
  /** The request body's copy; null when the request had no body. */
  request: BodyCopy | null;
  /** The upstream's answer as forwarded (absent when there was none). */
  response?: { status: number; raw: readonly string[]; body: BodyCopy | null };
  /** The upstream gave no (whole) answer: the status the client got and what went wrong. */
  transport?: { status: number; message: string };
}

const NOT_LIVE = new Set(["rate-limit-semantics", "lifecycle-observed", "use-after-delete", "crud-roundtrip"]);
/** Checks that read the response body. */
const READ_RESPONSE_BODY = new Set(["response-schema", "error-body", "retry-after", "invalid-input-rejected"]);
/** Checks whose verdict depends on whether the request body is valid. */
const READ_REQUEST_BODY = new Set(["invalid-input-rejected", "valid-input-accepted", "malformed-json-rejected"]);
const STRUCTURED_REQUEST = /json|x-www-form-urlencoded|multipart\/form-data/i;
const NO_BODY = new Uint8Array();

export class Judge {
  private readonly view: ContractView;
  private readonly checks: Check[];
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly contract: Contract,
    private readonly violations: ViolationList,
    private readonly sink: LogSink | null,
    private readonly now: () => number,
    /** Bytes of a body kept for judging. */
    readonly limit: number,
  ) {
    this.view = ContractView.of(contract);
    this.checks = createChecks(this.view).filter((c) => !NOT_LIVE.has(c.name));
  }

  /** Whether a request body is copied for judging (an operation's structured body) or only counted. */
  requestKeep(method: string, pathname: string, contentType: string | undefined): Keep {
    const m = this.contract.router.match(method, pathname);
    return m.kind === "ok" && m.route.op.requestBody && STRUCTURED_REQUEST.test(contentType ?? "") ? "copy" : "count";
  }

  /** Judges `o` in the background; `settled()` waits for it. Never throws: a failure to judge is logged. */
  judge(o: Observed): void {
    const p: Promise<void> = this.findings(o)
      .then((found) => void found.forEach((f) => this.violations.record(f)))
      .catch((e: Error) => this.say(`could not judge ${o.method} ${redact(o.target)}: ${redact(e.message)}`))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves once every exchange handed to `judge` so far is judged (not those handed to it meanwhile). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private say(text: string): void {
    this.sink?.(`${new Date(this.now()).toISOString()} ${text}`);
  }

  async findings(o: Observed): Promise<Finding[]> {
    const status = o.transport?.status ?? o.response?.status ?? 502;
    const base = { method: o.method, status, request: `${o.method} ${o.target}` };
    const match = this.contract.router.match(o.method, o.pathname);
    const out: Finding[] = [];
    if (match.kind !== "ok") {
      const message =
        match.kind === "method"
          ? `the contract documents ${match.allow.join(", ")} on this path, not ${o.method}`
          : `no operation of the contract matches ${o.method} ${o.pathname}`;
      out.push({ ...base, operationId: null, path: o.pathname, rule: "undocumented-operation", message });
    }
    const at = match.kind === "ok" ? { ...base, operationId: match.route.operationId, path: match.route.template } : { ...base, operationId: null, path: o.pathname };
    if (o.transport) out.push({ ...at, rule: "transport", message: o.transport.message });
    if (match.kind !== "ok") return out;

    const requestKnown = !o.request || (o.request.complete && !o.request.overLimit);
    if (!requestKnown) this.say(`${o.method} ${redact(o.target)}: request body not judged (${notWhole(o.request!, this.limit)})`);
    const response = o.response && !o.transport ? this.responseOf(o) : null;
    // A body only counted (a raw upload) stands in as one byte: the key check cannot tell two such bodies apart, so it
    // does not judge them (the mock hashes a stream upload as it arrives; the proxy keeps nothing of it).
    const counted = o.request?.keep === "count" && o.request.size > 0 ? ["idempotency-honoured"] : [];
    const skip = new Set<string>([...(requestKnown ? [] : READ_REQUEST_BODY), ...counted, ...(response?.bodyKnown === false ? READ_RESPONSE_BODY : [])]);
    const { exchange, results } = await checkExchange(this.view, response ? this.checks.filter((c) => !skip.has(c.name)) : [], {
      operation: match.route,
      request: { method: o.method, url: `http://proxy.invalid${o.target}`, headers: flatHeaders(o.headers), body: requestKnown ? (o.request?.bytes() ?? null) : null },
      response: response?.response ?? { status, headers: new Headers(), body: NO_BODY },
    });
    out.unshift(...requestFindings(exchange.facts, requestKnown, o.headers["content-type"]).map((f) => ({ ...at, ...f })));
    for (const r of results) for (const message of r.violations) out.push({ ...at, rule: r.rule, message });
    return out;
  }

  /** The response for the checks, its body decoded when it was sent compressed; `bodyKnown` false when not whole. */
  private responseOf(o: Observed): { response: ExchangeResponse; bodyKnown: boolean } {
    const r = o.response!;
    const headers = toHeaders(r.raw);
    if (!r.body) return { response: { status: r.status, headers, body: NO_BODY }, bodyKnown: true };
    const whole = r.body.complete && !r.body.overLimit;
    // An event stream is judged event by event: a prefix holds whole events, and one cut short is not judged.
    const stream = mediaTypeOf(headers.get("content-type")) === "text/event-stream";
    const encoding = (headers.get("content-encoding") ?? "identity").trim().toLowerCase();
    let body: Uint8Array | null = r.body.bytes();
    if (encoding !== "identity" && r.body.keep === "copy") body = whole ? decode(encoding, Buffer.from(body), this.limit) : null;
    const bodyKnown = body !== null && (whole || (stream && encoding === "identity"));
    if (!bodyKnown && r.body.keep === "copy") this.say(`${o.method} ${redact(o.target)}: ${r.status} response body not judged (${notWhole(r.body, this.limit, encoding)})`);
    return { response: { status: r.status, headers, body: body ?? NO_BODY, ...(whole ? {} : { truncated: true }) }, bodyKnown };
  }
}

/** Whether a response body is copied for judging: JSON, event streams and every error; other bodies are counted. */
export function responseKeep(status: number, contentType: string | undefined): Keep {
  const mt = mediaTypeOf(contentType);
  return status >= 400 || isJsonMediaType(mt) || mt === "text/event-stream" ? "copy" : "count";
}

/** The request's own departures from the contract, from the facts the verifier's checks were given. */
function requestFindings(facts: RequestFacts, bodyKnown: boolean, contentType: string | undefined): Array<{ rule: string; message: string }> {
  const out: Array<{ rule: string; message: string }> = [];
  const issues = bodyKnown ? facts.issues : facts.issues.filter((i) => i.loc[0] !== "body");
  if (issues.length) {
    const listed = issues.slice(0, 3).map((i) => `${i.loc.join(".")} ${i.msg}`);
    const more = issues.length > 3 ? `; and ${issues.length - 3} more` : "";
    out.push({ rule: "request-schema", message: `the request breaks the contract's schemas: ${listed.join("; ")}${more}` });
  }
  if (bodyKnown && facts.unparseableBody) out.push({ rule: "request-body-malformed", message: `the ${mediaTypeOf(contentType) || "request"} body cannot be parsed` });
  if (bodyKnown && facts.unsupportedMediaType) out.push({ rule: "request-content-type", message: `Content-Type ${contentType ?? "(none)"} is not one the operation takes` });
  return out;
}

function decode(encoding: string, bytes: Buffer, limit: number): Buffer | null {
  const o = { maxOutputLength: limit };
  try {
    if (encoding === "gzip" || encoding === "x-gzip") return zlib.gunzipSync(bytes, o);
    if (encoding === "deflate") return zlib.inflateSync(bytes, o);
    if (encoding === "br") return zlib.brotliDecompressSync(bytes, o);
  } catch {
    /* corrupt, or larger than the limit once decoded: not judged */
  }
  return null;
}

function notWhole(b: BodyCopy, limit: number, encoding = "identity"): string {
  if (!b.complete) return `cut off after ${b.size} bytes`;
  if (b.overLimit) return `${b.size} bytes, over the ${limit}-byte copy limit`;
  return `Content-Encoding ${encoding} could not be decoded within ${limit} bytes`;
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}
