// A violation made reproducible: the request as sent (credentials redacted), the response as received (bodies cut
// to 2 KB), the place in the contract whose rule failed, and a curl command that sends the same request again with
// the credential taken from `$API_KEY` (never the key itself), like Schemathesis' reproduction lines.
import { redact, redactQuery } from "../../mock/core/pipeline/log.js";
import { mediaTypeOf, type ContractView } from "../requests/contract-view.js";
import type { Check, Exchange, Reproduction } from "../types.js";

/** Largest body excerpt a reproduction keeps, in bytes. */
export const MAX_EXCERPT_BYTES = 2048;

const CREDENTIAL_HEADERS = new Set(["x-api-key", "authorization", "cookie"]);

/** JSON pointer escaping (RFC 6901). */
export function pointer(...segments: Array<string | number>): string {
  return "#/" + segments.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

/** The pointer of an operation, e.g. `#/paths/~1v1~1analyses/get`. */
export function operationPointer(e: Pick<Exchange, "operation">): string {
  return pointer("paths", e.operation.template, e.operation.method);
}

/**
 * Where in the contract each of the first pass's checks finds its rule; new checks say it themselves
 * (`Check.schemaPath`). A table here keeps those fourteen files as they were.
 */
function defaultSchemaPath(view: ContractView, rule: string, e: Exchange): string {
  const op = operationPointer(e);
  const key = view.declared(e.operation, e.response.status)?.key ?? String(e.response.status);
  const response = `${op}/responses/${key}`;
  const mt = mediaTypeOf(e.response.headers.get("content-type")) || "application/json";
  const table: Record<string, string> = {
    "status-declared": `${op}/responses`,
    "content-type-declared": `${response}/content`,
    "response-schema": `${response}/content/${mt.replaceAll("/", "~1")}/schema`,
    "error-body": `${response}/content/application~1json/schema`,
    "response-headers": `${response}/headers`,
    // The edge's rule for every response, whatever its status (one cause however many statuses lack them).
    "rate-limit-headers": pointer("x-rate-limit-policy", "headers"),
    "retry-after": `${response}/headers`,
    "rate-limit-semantics": pointer("x-rate-limit-policy"),
    "auth-enforced": pointer("security"),
    "token-query-rejected": pointer("components", "securitySchemes"),
    "invalid-input-rejected": e.request.body?.length ? `${op}/requestBody` : `${op}/parameters`,
    "valid-input-accepted": e.request.body?.length ? `${op}/requestBody` : `${op}/parameters`,
    "malformed-json-rejected": `${op}/requestBody`,
  };
  return table[rule] ?? op;
}

/** A body as text for a report: UTF-8 up to MAX_EXCERPT_BYTES, credentials redacted; bytes that are not text are described. */
export function excerpt(body: Uint8Array | null, contentType: string | null | undefined): string {
  if (!body || body.length === 0) return "";
  const mt = mediaTypeOf(contentType);
  const text = Buffer.from(body.subarray(0, MAX_EXCERPT_BYTES)).toString("utf8");
  const binary = /^(audio|video|image)\//.test(mt) || mt === "application/octet-stream" || text.includes("\uFFFD") || text.includes("\u0000");
  if (binary) return `(${body.length} bytes of ${mt || "unknown type"})`;
  return body.length > MAX_EXCERPT_BYTES ? `${text}… (${body.length} bytes in all)` : text;
}

/** `secrets`: each credential the case sent and the shell variable that stands for it in the curl line. */
export function reproduction(view: ContractView, checks: Check[], e: Exchange, rule: string, secrets: Array<[string, string]>): Reproduction {
  // Credentials only: the case's secrets anywhere, JWTs and keys in headers and bodies, `token=` in URLs — never
  // another query value (a cursor may look like a JWT, and the curl line must still reach its page).
  const swap = (text: string, as: (variable: string) => string) => secrets.reduce((t, [secret, variable]) => t.split(secret).join(as(variable)), text);
  const hide = (text: string, as: (variable: string) => string) => redact(swap(text, as));
  const hideUrl = (text: string, as: (variable: string) => string) => redactQuery(swap(text, as));
  const headers = Object.fromEntries(Object.entries(e.request.headers).map(([k, v]) => [k, CREDENTIAL_HEADERS.has(k) ? hide(v, () => "[redacted]") : v]));
  const responseHeaders: Record<string, string> = {};
  e.response.headers.forEach((v, k) => void (responseHeaders[k] = k === "set-cookie" ? "[redacted]" : v));
  const check = checks.find((c) => c.name === rule);
  return {
    request: { method: e.request.method, url: hideUrl(e.request.url, () => "[redacted]"), headers, body: e.request.body?.length ? excerpt(e.request.body, e.request.headers["content-type"]) : null },
    response: { status: e.response.status, headers: responseHeaders, body: excerpt(e.response.body, e.response.headers.get("content-type")) },
    schema_path: check?.schemaPath?.(e) ?? defaultSchemaPath(view, rule, e),
    curl: curl(e, (t) => hide(t, (variable) => variable), (t) => hideUrl(t, (variable) => variable)),
  };
}

/** Single-quoted for a POSIX shell. */
function sq(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Double-quoted for a POSIX shell, so `$API_KEY` expands; other `$`, backquotes, quotes and backslashes escaped. */
function dq(s: string): string {
  return `"${s.replace(/[\\"`]/g, "\\$&").replace(/\$(?!API_KEY(?:_B)?\b|REVOKED_API_KEY\b)/g, "\\$")}"`;
}

function curl(e: Exchange, hide: (text: string) => string, hideUrl: (url: string) => string): string {
  const parts = ["curl", "-sS", "-i", "-X", e.request.method];
  const url = hideUrl(e.request.url);
  parts.push(url.includes("$") ? dq(url) : sq(url));
  for (const [k, v] of Object.entries(e.request.headers)) {
    if (k === "user-agent") continue;
    const h = `${k}: ${CREDENTIAL_HEADERS.has(k) ? hide(v) : v}`;
    parts.push("-H", h.includes("$") ? dq(h) : sq(h));
  }
  const body = e.request.body;
  if (body?.length) {
    const text = Buffer.from(body).toString("utf8");
    const printable = body.length <= MAX_EXCERPT_BYTES && !text.includes("\uFFFD") && !text.includes("\u0000");
    parts.push("--data-binary", printable ? sq(hide(text)) : `@body.bin  # ${body.length} bytes of ${e.request.headers["content-type"] ?? "unknown type"}: not shown`);
  }
  return parts.join(" ");
}
