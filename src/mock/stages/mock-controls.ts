// Stage `mockControls`: the mock's own controls, outside the API and the contract, under /__mock/:
//   POST /__mock/reset   every registered MockState back to its seeded start (keys, webhooks, OAuth tokens, the
//                        store); the rate limiter keeps counting, as the real edge would. 204.
// No credentials (the demo keys are public, so a key would protect nothing). Instead only a client on this machine,
// and not a web page of another site: the peer address must be loopback, and an `Origin` (which browsers send with
// every cross-origin POST, and scripts like curl do not) must be the mock's own, on a loopback host — which also
// stops a page that rebinds its own name to 127.0.0.1. Otherwise 403.
import net from "node:net";
import { json, type Reply } from "../http/reply.js";
import type { RequestContext } from "../context.js";
import type { StageFactory } from "../stage.js";
import { isLoopbackUrl } from "../webhooks.js";
import { quote } from "../log.js";

export const MOCK_CONTROLS_PREFIX = "/__mock/";

export const mockControls: StageFactory = (s) => {
  const actions = new Map<string, () => void>([["/__mock/reset", () => s.states.reset()]]);
  return function mockControls(ctx) {
    if (!ctx.pathname.startsWith(MOCK_CONTROLS_PREFIX)) return undefined;
    const action = actions.get(ctx.pathname);
    if (!action) return json(404, { detail: `No mock control at ${quote(ctx.pathname)}; there is POST /__mock/reset.` });
    if (ctx.method !== "POST") return json(405, { detail: `${quote(ctx.pathname)} takes POST.` }, { Allow: "POST" });
    const refused = notFromThisMachine(ctx);
    if (refused) return json(403, { detail: refused });
    action();
    s.sink?.(`${new Date(s.clock.now()).toISOString()} mock state reset: ${s.states.all.map((p) => p.name).join(", ") || "nothing is kept (--stateless)"}`);
    return { status: 204, headers: {}, body: null } satisfies Reply;
  };
};

/**
 * Why a request may not use the controls, or null when it comes from a program on this machine. `example` shows
 * how to call the control from a terminal instead.
 */
export function notFromThisMachine(ctx: RequestContext, example = "curl -X POST …/__mock/reset"): string | null {
  if (!isLoopbackAddress(ctx.req.socket.remoteAddress)) return "The mock's controls answer only clients on this machine.";
  const origin = ctx.req.headers.origin;
  if (origin === undefined) return null;
  const own = isLoopbackUrl(origin) && new URL(origin).host === ctx.req.headers.host;
  return own ? null : `The mock's controls do not answer web pages of other sites (this request carries their Origin). Call it from a terminal or a script: ${example}`;
}

function isLoopbackAddress(a: string | undefined): boolean {
  if (!a) return false;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return a === "::1" || (net.isIPv4(v4) && v4.startsWith("127."));
}
