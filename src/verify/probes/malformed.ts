// Malformed requests over a raw socket: requests an HTTP parser refuses (a control byte in a header value, a bad
// request line, a header line without a colon), which no fetch can send. Each goes to a path of a selected
// operation, without credentials, with an `Origin` header, and its answer is judged like any other by the contract's
// rules for an error (`status-declared`, `error-body`, `response-schema`, the `X-RateLimit-*` headers and the
// required `Access-Control-Allow-Origin` of the declared 400: `response-headers`), plus `malformed-request-refused`
// (checks/malformed-request-refused.ts): a request that is not HTTP answers 400. A connection closed without a byte
// is allowed (RFC 9112 §2.2 says a server SHOULD answer 400, not MUST): nothing to judge, said in a notice.
// The bytes go out and the answer comes back through raw-http.ts (Session.exchangeRaw).
import type { Parts } from "../requests/cases.js";
import type { RoundtripContext } from "./probe-context.js";
import type { Sent } from "../session/session.js";
import type { MalformedStep, Operation } from "../types.js";

/** The Origin a malformed request carries (a browser's page on another origin): its 400 must still allow it. */
export const MALFORMED_ORIGIN = "https://verify.invalid";

interface MalformedKind {
  kind: MalformedStep["kind"];
  label: string;
  /** The raw request, given the request target and the Host. */
  raw(target: string, host: string): string;
}

/**
 * The three malformed requests. A control byte other than CR, LF and NUL may be kept by a lenient parser (RFC 9110
 * §5.5), so its answer may also be the operation's ordinary one; a bad request line and a header line without a
 * colon are no HTTP/1.1 message at all (RFC 9112 §3, §5) and must be refused.
 */
export const MALFORMED_KINDS: MalformedKind[] = [
  { kind: "control-byte", label: "malformed: control byte in a header value", raw: (t, h) => `GET ${t} HTTP/1.1\r\nHost: ${h}\r\nOrigin: ${MALFORMED_ORIGIN}\r\nX-Probe: a\x01b\r\n\r\n` },
  { kind: "request-line", label: "malformed: bad request line", raw: (t, h) => `GET ${t} HTTP/1.1 extra\r\nHost: ${h}\r\nOrigin: ${MALFORMED_ORIGIN}\r\n\r\n` },
  { kind: "no-colon", label: "malformed: header line without a colon", raw: (t, h) => `GET ${t} HTTP/1.1\r\nHost: ${h}\r\nOrigin: ${MALFORMED_ORIGIN}\r\nX-No-Colon\r\n\r\n` },
];

/** The operation the malformed requests name: the first selected GET without path parameters, else the first GET. */
export function malformedTarget(operations: Operation[]): Operation | undefined {
  const gets = operations.filter((op) => op.method === "get" && !op.template.startsWith("/ws"));
  return gets.find((op) => !op.template.includes("{")) ?? gets[0];
}

/** Sends the malformed requests of the run (when an operation can carry them), each judged by the session's checks. */
export async function malformedRequests(ctx: RoundtripContext, operations: Operation[]): Promise<void> {
  const op = malformedTarget(operations);
  if (!op) return;
  const send = ctx.session.o.send;
  if (send.fetch && !send.raw) return void ctx.report.notices.push("malformed requests were not sent: they need a socket, and the run sends through an injected fetch");
  const parts: Parts | undefined = ctx.builder.examples(op)[0];
  if (!parts) return;
  const path = new URL((await ctx.builder.render(op, parts)).path, "http://x.invalid").pathname;
  for (const m of MALFORMED_KINDS) {
    if (ctx.only && !ctx.only(op, m.label)) continue;
    const step: MalformedStep = { kind: m.kind, mustRefuse: m.kind !== "control-byte" };
    const sent: Sent = await ctx.scheduler.runOne({ bucket: `anonymous:${op.category.name}`, run: () => ctx.session.exchangeRaw(op, m.label, path, m.raw, { malformed: step }), skip: () => {} });
    if (sent.kind === "skipped") ctx.report.notices.push(`${op.operationId} (${m.label}): ${sent.reason}`);
  }
}
