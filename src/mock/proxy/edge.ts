// Proxy mode's edge checks that plain requests and WebSocket upgrades share (issue 22: the upgrade path skipped
// them): only an origin-form target is forwarded, and at most `proxyExchanges` exchanges cross at once.
import { json } from "../core/http/reply.js";
import { CAPACITY_RETRY_AFTER_SECONDS } from "../core/access/limits.js";
import type { Services } from "../core/pipeline/services.js";
import type { Stage } from "../core/pipeline/stage.js";
import type { Proxy } from "./proxy.js";

/** An absolute-form target (`GET http://host/ HTTP/1.1`) asks for a forward proxy, which this is not: 400. */
export function originFormOnly(): Stage {
  return function originFormOnly(ctx) {
    if (ctx.url.startsWith("/")) return undefined;
    return json(400, { detail: "The request target must be a path: the gateway forwards to its own upstream only." }, { Connection: "close" });
  };
}

/**
 * At most `proxyExchanges` exchanges (answers and tunnels) cross at once; one more answers 503
 * `capacity_exceeded`. An exchange ends when its response, or its tunnel's socket, closes.
 */
export function proxyCapacity(s: Services, p: Proxy): Stage {
  const max = s.settings.limits.proxyExchanges;
  return function proxyCapacity(ctx) {
    if (p.crossing >= max) {
      const detail = `The proxy has ${max} exchanges crossing, the most it carries at once (--max-proxy-exchanges): retry shortly.`;
      return json(503, { detail, error: "capacity_exceeded" }, { "Retry-After": String(CAPACITY_RETRY_AFTER_SECONDS) });
    }
    p.crossing++;
    const done = () => p.crossing--;
    if (ctx.res) ctx.res.once("close", done);
    else ctx.upgrade!.socket.once("close", done);
    return undefined;
  };
}
