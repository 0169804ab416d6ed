// Forwarding to a workspace's owner (`--ownership`, decision SB29): a request of a workspace another replica owns is
// sent there as it came (method, target, headers, body streamed) over a keep-alive connection, and the owner's
// answer is piped back as it comes, event streams included. One hop only: a request that was already forwarded and
// reaches a replica that is not the owner either (the lease moved meanwhile) is answered 503 with Retry-After rather
// than sent on. A WebSocket upgrade is not forwarded: it is answered 503 (not built yet; SB29 says so).
import http from "node:http";
import type { RequestContext } from "../../core/pipeline/context.js";
import { TAKEN, type Outcome } from "../../core/pipeline/stage.js";
import { DependencyUnavailable } from "../../core/state/shared-state.js";
import { forwardedRequestHeaders, forwardedResponseHeaders, withRequestId } from "../../proxy/headers.js";

/** Set on a forwarded request: its receiver never forwards it again. */
export const FORWARDED = "x-avt-forwarded";
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function refuse(why: string): Promise<Outcome> {
  return Promise.reject(new DependencyUnavailable("replica", new Error(why)));
}

/** Forwards `ctx` to the owner at base URL `owner`; `gone` is told when the owner cannot be reached. */
export function forwardRequest(ctx: RequestContext, owner: string, gone: () => void): Promise<Outcome> {
  const res = ctx.res;
  if (!res) return refuse("a WebSocket of a workspace another replica owns is not forwarded");
  if (ctx.req.headers[FORWARDED]) return refuse(`forwarded here, but ${owner} owns the workspace now`);
  const u = new URL(owner);
  // The proxy's header rules (proxy/headers.ts: hop-by-hop fields and what Connection names dropped both ways), with
  // the client's own Host kept (URLs the owner writes into answers name the address the client used) and the
  // request id this replica answers with.
  const headers = withRequestId(forwardedRequestHeaders(ctx.req.rawHeaders, ctx.req.headers.host ?? u.host, false), ctx.idHead);
  headers.push(FORWARDED, "1");
  return new Promise<Outcome>((resolve, reject) => {
    const out = http.request({ host: u.hostname, port: u.port, method: ctx.method, path: ctx.url, headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, forwardedResponseHeaders(up.rawHeaders));
      res.flushHeaders();
      up.pipe(res);
      res.once("close", () => up.destroy());
      resolve(TAKEN);
    });
    out.once("error", (e) => {
      if (res.headersSent) return void res.destroy();
      gone();
      reject(new DependencyUnavailable("replica", e));
    });
    ctx.req.pipe(out);
  });
}
