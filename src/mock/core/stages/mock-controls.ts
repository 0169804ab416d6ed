// Stage `mockControls`: the mock's own controls, outside the API and the contract, under /__mock/ (decision MC3):
//   POST   /__mock/reset    every registered MockState back to its seeded start (keys, webhooks, OAuth tokens, the
//                           store), the fault rules cleared, the simulated clock back to real time and running, and
//                           every open event stream and WebSocket ended (1012); the rate limiter keeps counting, as
//                           the real edge would. 204.
//   GET    /__mock/clock    the gateway's one clock (core/clock/simulated.ts): {now, paused, offset_ms, pending, next_at}
//   POST   /__mock/clock    {"action": "pause" | "resume" | "advance", "ms": n}: answers the clock as it is then
//   GET    /__mock/faults   the fault rules (faults.ts): {rules: [...]}
//   POST   /__mock/faults   adds one rule: 201 with it, its `id` and `used`; 400 naming what is wrong with it
//   DELETE /__mock/faults   clears them: 204
// No credentials (the demo keys are public, so a key would protect nothing). Instead only a client on this machine,
// and not a web page of another site: the peer address must be loopback, and an `Origin` (which browsers send with
// every cross-origin POST, and scripts like curl do not) must be the mock's own, on a loopback host — which also
// stops a page that rebinds its own name to 127.0.0.1. Otherwise 403.
import { readBody } from "../http/body.js";
import { json, type Reply } from "../http/reply.js";
import type { RequestContext } from "../pipeline/context.js";
import { FaultError } from "../controls/faults.js";
import type { Services } from "../pipeline/services.js";
import { unavailable } from "../access/rate-answers.js";
import type { StageFactory } from "../pipeline/stage.js";
import { isLoopbackAddress } from "../../../loopback.js";
import { isLoopbackUrl } from "../events/webhooks.js";
import { quote } from "../pipeline/log.js";

export const MOCK_CONTROLS_PREFIX = "/__mock/";

/** A control's answer to one method; `body` is the parsed JSON body (undefined without one). */
type Handler = (body: unknown) => Reply | Promise<Reply>;

/** Largest body a control reads. */
const MAX_CONTROL_BODY = 64 * 1024;
/** The longest step of the clock: a year. */
const MAX_ADVANCE_MS = 366 * 86_400_000;

const NO_CONTENT: Reply = { status: 204, headers: {}, body: null };
const noStore = (status: number, value: unknown) => json(status, value, { "Cache-Control": "no-store" });

function controls(s: Services): Map<string, Record<string, Handler>> {
  return new Map<string, Record<string, Handler>>([
    ["/__mock/reset", { POST: () => synced(s, () => shared(s, (reset(s), NO_CONTENT))) }],
    ["/__mock/clock", { GET: () => clockRead(s), POST: (body) => shared(s, clock(s, body)) }],
    [
      "/__mock/faults",
      {
        GET: () => synced(s, () => noStore(200, { rules: s.faults.list() })),
        POST: (body) =>
          synced(s, () => {
            try {
              return noStore(201, s.faults.add(body));
            } catch (e) {
              if (e instanceof FaultError) return json(400, { detail: `Fault rule: ${e.message}` });
              throw e;
            }
          }),
        DELETE: () => synced(s, () => (s.faults.clear(), NO_CONTENT)),
      },
    ],
  ]);
}

export const mockControls: StageFactory = (s) => {
  const table = controls(s);
  const listing = [...table].map(([path, methods]) => `${Object.keys(methods).join(", ")} ${path}`).join("; ");
  return function mockControls(ctx) {
    if (!ctx.pathname.startsWith(MOCK_CONTROLS_PREFIX)) return undefined;
    const methods = table.get(ctx.pathname);
    if (!methods) return json(404, { detail: `No mock control at ${quote(ctx.pathname)}; there are ${listing}.` });
    const handler = methods[ctx.method];
    const allow = Object.keys(methods).join(", ");
    if (!handler) return json(405, { detail: `${quote(ctx.pathname)} takes ${allow}.` }, { Allow: allow });
    const refused = notFromThisMachine(ctx, `curl ${ctx.method === "GET" ? "" : `-X ${ctx.method} `}…${ctx.pathname}`);
    if (refused) return json(403, { detail: refused });
    // A handler that declares no parameter takes no body (reset): answered at once, synchronously.
    if (handler.length === 0) return handler(undefined);
    return readJson(ctx).then((body) => (body instanceof BadBody ? body.reply : handler(body)));
  };
};

/** A control's body that cannot be read: its 400. */
class BadBody {
  constructor(readonly reply: Reply) {}
}

/** The control's JSON body (undefined when there is none), or the 400 of one that is not JSON. */
async function readJson(ctx: RequestContext): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await readBody(ctx.req, true, MAX_CONTROL_BODY);
  } catch (e) {
    return new BadBody({ ...json(400, { detail: (e as Error).message }), linger: true });
  }
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (e) {
    return new BadBody(json(400, { detail: `The body is not JSON: ${(e as Error).message}.` }));
  }
}

/**
 * In replicas on PostgreSQL, the parts are read as the database holds them first (the fault rules are one, SB18: a
 * rule added through another replica is listed, cleared, joined or reset here). Controls run before `syncParts`.
 */
function synced(s: Services, fn: () => Reply | Promise<Reply>): Reply | Promise<Reply> {
  const pending = s.shared?.syncParts();
  return pending ? pending.then(fn, unavailable) : fn();
}

/** POST /__mock/reset: everything back to its start, and whatever is open ended. */
function reset(s: Services): void {
  for (const ac of [...s.live.streams]) ac.abort();
  for (const ws of [...s.live.sockets]) ws.close(1012, "mock reset");
  s.states.reset();
  s.ids?.restart();
  s.faults.clear();
  s.clock.reset();
  s.sink?.(`${new Date(s.clock.now()).toISOString()} mock state reset: ${s.states.all.map((p) => p.name).join(", ") || "nothing is kept (--stateless)"}`);
}

/**
 * A control that may have changed the clock, in a sandbox's replicas: the clock's state is published to every
 * replica before the answer goes out (decision SB12), and the answer shows the clock as it is then.
 */
function shared(s: Services, reply: Reply): Reply | Promise<Reply> {
  if (!s.clockShare || reply.status >= 400) return reply;
  const fresh = () => (reply.status === 200 ? noStore(200, s.clock.state()) : reply);
  return s.clockShare.publish(s.clock.shared()).then(fresh, unavailable);
}

/** GET /__mock/clock: in replicas, the shared state read first (another replica may have just changed it). */
function clockRead(s: Services): Reply | Promise<Reply> {
  if (!s.clockShare) return noStore(200, s.clock.state());
  return s.clockShare.refresh().then(() => noStore(200, s.clock.state()), unavailable);
}

/** POST /__mock/clock. */
function clock(s: Services, body: unknown): Reply {
  const b = (body ?? {}) as { action?: unknown; ms?: unknown };
  if (typeof body !== "object" || body === null || Array.isArray(body)) return json(400, { detail: 'The body is {"action": "pause" | "resume" | "advance", "ms": <for advance>}.' });
  const extra = Object.keys(b).filter((k) => k !== "action" && k !== "ms");
  if (extra.length) return json(400, { detail: `${extra[0]}: not a field of the clock control (action, ms).` });
  if (b.action === "pause" || b.action === "resume") {
    if (b.ms !== undefined) return json(400, { detail: `ms: only "advance" takes ms.` });
    s.clock[b.action]();
  } else if (b.action === "advance") {
    if (!Number.isSafeInteger(b.ms) || (b.ms as number) < 0 || (b.ms as number) > MAX_ADVANCE_MS) {
      return json(400, { detail: `ms: "advance" takes a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS}; got ${JSON.stringify(b.ms) ?? "none"}.` });
    }
    s.clock.advance(b.ms as number);
    s.states.changed();
  } else {
    return json(400, { detail: `action: one of pause, resume, advance; got ${JSON.stringify(b.action) ?? "none"}.` });
  }
  return noStore(200, s.clock.state());
}

/**
 * Why a request may not use the controls, or null when it comes from a program on this machine. `example` shows
 * how to call the control from a terminal instead.
 */
export function notFromThisMachine(ctx: RequestContext, example = "curl -X POST …/__mock/reset"): string | null {
  if (!isLoopbackAddress(ctx.req.socket.remoteAddress ?? "")) return "The mock's controls answer only clients on this machine.";
  const origin = ctx.req.headers.origin;
  if (origin === undefined) return null;
  const own = isLoopbackUrl(origin) && new URL(origin).host === ctx.req.headers.host;
  return own ? null : `The mock's controls do not answer web pages of other sites (this request carries their Origin). Call it from a terminal or a script: ${example}`;
}


