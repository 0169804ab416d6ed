// Stage `forward` (proxy mode): every request that reaches it goes to the upstream as it came — method, path,
// query, headers (headers.ts says which are dropped), the body streamed with back-pressure — and the upstream's
// answer comes back the same way: its status, reason, headers and bytes, event streams flushed as they arrive.
// Each body streams past a bounded copy (body-copy.ts), and when the exchange is over the judge (judge.ts) looks
// at it; nothing the judge finds changes the traffic. An upstream that cannot be reached answers 502, one that
// does not start answering within its time 504 (the gateway's own JSON error bodies), and both are listed.
import type http from "node:http";
import { hasBody, lingerAfterAnswer } from "../core/http/body.js";
import { send } from "../core/http/respond.js";
import type { RequestContext } from "../core/pipeline/context.js";
import type { Services } from "../core/pipeline/services.js";
import { TAKEN, type Stage } from "../core/pipeline/stage.js";
import { BodyCopy } from "./body-copy.js";
import { forwardedRequestHeaders, forwardedResponseHeaders, withRequestId } from "./headers.js";
import type { Observed } from "./judge.js";
import { responseKeep } from "./judge.js";
import type { Proxy } from "./proxy.js";

export function forward(s: Services, p: Proxy): Stage {
  return function forward(ctx) {
    relay(s, p, ctx);
    return TAKEN;
  };
}

/** The state of one exchange as it crosses the proxy. */
interface Crossing {
  observed: Observed;
  judged: boolean;
  /** The client went away before the answer was whole (its upstream request is then cut, not failed). */
  clientGone: boolean;
}

function relay(s: Services, p: Proxy, ctx: RequestContext): void {
  const { req } = ctx;
  const res = ctx.res!;
  const copy = hasBody(req) ? new BodyCopy(p.judge.requestKeep(ctx.method, ctx.pathname, req.headers["content-type"]), p.judge.limit) : null;
  const c: Crossing = { observed: { method: ctx.method, target: ctx.url, pathname: ctx.pathname, headers: req.headers, request: copy }, judged: false, clientGone: false };
  const upstream = p.request(ctx.method, ctx.url, withRequestId(forwardedRequestHeaders(req.rawHeaders, p.upstream.host, false), ctx.idHead));
  let timedOut = false;
  upstream.setTimeout(p.timeoutMs, () => ((timedOut = true), upstream.destroy()));
  if (copy) {
    req.on("data", (chunk: Buffer) => copy.add(chunk));
    req.on("end", () => (copy.complete = true));
  }
  req.pipe(upstream);
  const fail = (failure: ReturnType<Proxy["failure"]>) => {
    if (c.clientGone || res.headersSent) return;
    req.unpipe(upstream);
    // The request body may still be arriving: read and drop it, then close (as a refused body does, http/body.ts).
    if (!req.complete) lingerAfterAnswer(req), (failure.reply.headers.Connection = "close");
    send(res, failure.reply, s.head, s.live.draining, ctx.idHead);
    judgeOnce(p, c, { transport: failure });
  };
  upstream.on("response", (ures) => {
    upstream.setTimeout(0);
    // A status line node:http parsed but cannot send on (a status outside 100-599, a control byte in the reason):
    // 502 and a violation, never an exception out of writeHead that would end the process (issue 29).
    const invalid = invalidStatusLine(ures);
    if (invalid) {
      ures.resume();
      return fail(p.invalidAnswer(invalid));
    }
    relayResponse(p, c, ures, res);
  });
  upstream.on("error", (e: NodeJS.ErrnoException) => fail(p.failure(timedOut, e)));
  // An interim answer (1xx) the request did not ask for, or an upgrade it did not request (101 to a plain GET):
  // node:http would wait on for a final answer that may never come, so the client gets 502 at once (issue 47).
  const unasked = (why: string) => {
    upstream.destroy();
    fail(p.invalidAnswer(why));
  };
  upstream.on("information", (info) => unasked(interimWhy(info.statusCode, false)));
  upstream.on("upgrade", (ures, usocket) => {
    usocket.destroy();
    unasked(interimWhy(ures.statusCode ?? 101, false));
  });
  res.on("close", () => {
    if (res.writableEnded) return;
    c.clientGone = true;
    upstream.destroy();
  });
}

/**
 * Why an interim (1xx) answer cannot be sent on: the proxy relays final answers only, and a 101 only to a request
 * that asked to upgrade (`upgrading`). 100 Continue is not asked for either: the proxy forwards no `Expect`.
 */
export function interimWhy(status: number, upgrading: boolean): string {
  if (status === 101) return upgrading ? "101 without a WebSocket upgrade" : "101 Switching Protocols, an upgrade the request had not asked for";
  return `status ${status}, an interim answer the request had not asked for (the proxy relays final answers only)`;
}

/** What is wrong with the upstream's status line, or null when it can be sent on as it is. */
export function invalidStatusLine(ures: http.IncomingMessage): string | null {
  const status = ures.statusCode ?? 0;
  if (!Number.isInteger(status) || status < 100 || status > 599) return `status ${JSON.stringify(String(status).padStart(3, "0"))} is not 100-599`;
  // RFC 9112's reason-phrase: HTAB, SP, visible ASCII and obs-text; anything else (a control byte) is refused.
  if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(ures.statusMessage ?? "")) return `reason phrase ${JSON.stringify(ures.statusMessage)} holds a control byte`;
  return null;
}

function relayResponse(p: Proxy, c: Crossing, ures: http.IncomingMessage, res: http.ServerResponse): void {
  const status = ures.statusCode ?? 502;
  const body = new BodyCopy(responseKeep(status, ures.headers["content-type"]), p.judge.limit);
  const response = { status, raw: ures.rawHeaders, body };
  // The upstream's headers exactly: node:http adds no Date of its own.
  res.sendDate = false;
  res.writeHead(status, ures.statusMessage, forwardedResponseHeaders(ures.rawHeaders));
  if (/^text\/event-stream/i.test(ures.headers["content-type"] ?? "")) {
    res.flushHeaders();
    p.track(res);
  }
  ures.on("data", (chunk: Buffer) => body.add(chunk));
  ures.on("end", () => {
    body.complete = true;
    judgeOnce(p, c, { response });
  });
  ures.on("error", () => {}); // a reset upstream: 'close' below says what happened
  ures.on("close", () => {
    if (ures.complete) return;
    res.destroy(); // the client sees the answer break off, as it did
    judgeOnce(p, c, c.clientGone ? { response } : { response, transport: { status, message: `the upstream's answer broke off after ${body.size} bytes of body` } });
  });
  ures.pipe(res);
}

function judgeOnce(p: Proxy, c: Crossing, outcome: Pick<Observed, "response" | "transport">): void {
  if (c.judged) return;
  c.judged = true;
  p.judge.judge({ ...c.observed, ...outcome });
}
