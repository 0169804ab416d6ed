// Stage `tunnel` (proxy mode, WebSocket upgrades): the upgrade request goes to the upstream with its headers; a
// 101 is passed back with the upstream's headers, and from then on the two sockets are piped together, so every
// frame crosses unchanged in both directions (no WebSocket library in between re-frames, masks or merges
// anything). A refused upgrade (401, 426, …) is passed back as it came, and the connection closes. The judge sees
// the handshake: the 101's status and headers, or the refusal; frames are not judged (decision X4). An invalid
// status line or an interim answer other than the 101 is 502 with a violation (decision X14).
import type http from "node:http";
import type { Duplex } from "node:stream";
import { writeRaw } from "../core/http/respond.js";
import type { RequestContext } from "../core/pipeline/context.js";
import type { Services } from "../core/pipeline/services.js";
import { TAKEN, type Stage } from "../core/pipeline/stage.js";
import { BodyCopy } from "./body-copy.js";
import { interimWhy, invalidStatusLine } from "./forward.js";
import { forwardedRequestHeaders, forwardedResponseHeaders, withRequestId } from "./headers.js";
import { responseKeep, type Observed } from "./judge.js";
import type { Proxy } from "./proxy.js";

export function tunnel(s: Services, p: Proxy): Stage {
  return function tunnel(ctx) {
    const { socket, head } = ctx.upgrade!;
    const observed: Observed = { method: ctx.method, target: ctx.url, pathname: ctx.pathname, headers: ctx.req.headers, request: null };
    const upstream = p.request(ctx.method, ctx.url, withRequestId(forwardedRequestHeaders(ctx.req.rawHeaders, p.upstream.host, true), ctx.idHead));
    let timedOut = false;
    upstream.setTimeout(p.timeoutMs, () => ((timedOut = true), upstream.destroy()));
    socket.on("close", () => upstream.destroy());
    // An answer that cannot be sent on (an invalid status line, an interim 1xx other than the 101): 502 and a
    // violation, as for a plain request (forward.ts), never raw bytes passed through nor a client left waiting.
    let answered = false;
    const invalid = (why: string) => {
      answered = true;
      upstream.destroy();
      if (socket.destroyed) return;
      const failure = p.invalidAnswer(why);
      writeRaw(socket, failure.reply, s.head, ctx.idHead);
      s.logRequest(ctx, failure.status);
      p.judge.judge({ ...observed, transport: failure });
    };
    upstream.on("information", (info) => invalid(interimWhy(info.statusCode, true)));
    upstream.on("upgrade", (ures, usocket, uhead) => {
      const bad = invalidStatusLine(ures);
      if (bad) return usocket.destroy(), invalid(bad);
      usocket.setTimeout(0);
      socket.write(statusLine(ures) + headerLines(forwardedResponseHeaders(ures.rawHeaders, ["connection"])));
      if (uhead.length) socket.write(uhead);
      if (head.length) usocket.write(head);
      for (const x of [socket, usocket]) {
        p.track(x);
        x.on("error", () => (socket.destroy(), usocket.destroy()));
        x.on("close", () => (socket.destroy(), usocket.destroy()));
      }
      usocket.pipe(socket).pipe(usocket);
      s.logRequest(ctx, 101);
      p.judge.judge({ ...observed, response: { status: ures.statusCode ?? 101, raw: ures.rawHeaders, body: null } });
    });
    upstream.on("response", (ures) => {
      const bad = invalidStatusLine(ures);
      if (bad) return ures.resume(), invalid(bad);
      refused(s, p, ctx, observed, ures, socket);
    });
    upstream.on("error", (e: NodeJS.ErrnoException) => {
      if (socket.destroyed || answered) return;
      const failure = p.failure(timedOut, e);
      writeRaw(socket, failure.reply, s.head, ctx.idHead);
      s.logRequest(ctx, failure.status);
      p.judge.judge({ ...observed, transport: failure });
    });
    upstream.end();
    return TAKEN;
  };
}

/** A refused upgrade: the upstream's answer passed back whole, then the connection closes. */
function refused(s: Services, p: Proxy, ctx: RequestContext, observed: Observed, ures: http.IncomingMessage, socket: Duplex): void {
  const status = ures.statusCode ?? 502;
  const body = new BodyCopy(responseKeep(status, ures.headers["content-type"]), p.judge.limit);
  // Without Content-Length the body is delimited by the close (node:http has undone any chunked framing).
  socket.write(statusLine(ures) + headerLines([...forwardedResponseHeaders(ures.rawHeaders), "Connection", "close"]));
  ures.on("data", (chunk: Buffer) => (body.add(chunk), socket.write(chunk)));
  ures.on("end", () => {
    body.complete = true;
    socket.end();
    s.logRequest(ctx, status);
    p.judge.judge({ ...observed, response: { status, raw: ures.rawHeaders, body } });
  });
  ures.on("error", () => socket.destroy());
}

function statusLine(res: http.IncomingMessage): string {
  return `HTTP/1.1 ${res.statusCode} ${res.statusMessage ?? ""}\r\n`;
}

function headerLines(flat: readonly string[]): string {
  let out = "";
  for (let i = 0; i < flat.length; i += 2) out += `${flat[i]}: ${flat[i + 1]}\r\n`;
  return out + "\r\n";
}
