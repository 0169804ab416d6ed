// Stage `proxyControls` (proxy mode): the controls under /__mock/ in this mode.
//   GET /__mock/violations[?since=<seq>]  the departures seen so far, the newest last (violations.ts), once every
//                                        exchange already over is judged: `{upstream, total, dropped, violations}`
//   DELETE /__mock/violations            forgets them; 204
// Guarded like POST /__mock/reset (mock-controls.ts): only clients on this machine, and no web page of another site
// (every answer of the gateway allows any origin to read it, and the list quotes the backend's answers).
import { json, type Reply } from "../core/http/reply.js";
import type { RequestContext } from "../core/pipeline/context.js";
import type { Services } from "../core/pipeline/services.js";
import type { Outcome, Stage } from "../core/pipeline/stage.js";
import { MOCK_CONTROLS_PREFIX, notFromThisMachine } from "../core/stages/mock-controls.js";
import type { Proxy } from "./proxy.js";

export const VIOLATIONS_PATH = "/__mock/violations";

export function proxyControls(_s: Services, p: Proxy): Stage {
  return function proxyControls(ctx) {
    if (!ctx.pathname.startsWith(MOCK_CONTROLS_PREFIX)) return undefined;
    if (ctx.pathname !== VIOLATIONS_PATH) return json(404, { detail: `No control at ${ctx.pathname} in proxy mode; there is GET and DELETE ${VIOLATIONS_PATH}.` });
    if (ctx.method !== "GET" && ctx.method !== "DELETE") return json(405, { detail: `${VIOLATIONS_PATH} takes GET or DELETE.` }, { Allow: "GET, DELETE" });
    const refused = notFromThisMachine(ctx, `curl ${ctx.method === "DELETE" ? "-X DELETE " : ""}…${VIOLATIONS_PATH}`);
    if (refused) return json(403, { detail: refused });
    if (ctx.method === "DELETE") {
      p.violations.clear();
      return { status: 204, headers: {}, body: null } satisfies Reply;
    }
    return list(p, ctx);
  };
}

function list(p: Proxy, ctx: RequestContext): Outcome | Promise<Outcome> {
  const since = ctx.query.get("since") ?? "0";
  if (!/^\d{1,15}$/.test(since)) return json(400, { detail: `since must be the seq of a listed violation (a whole number), not ${JSON.stringify(since.slice(0, 40))}.` });
  return p.judge.settled().then(() => json(200, { upstream: p.upstream.url, ...p.violations.view(Number(since)) }, { "Cache-Control": "no-store" }));
}
