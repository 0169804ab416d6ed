// The node:http handlers that run a pipeline (pipeline.ts) for each request and send what it answers: a Reply
// after the headers every answer carries, or nothing when a stage has answered by itself (TAKEN). A stage that
// throws answers 500, and the request log gets the stack.
import type http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { RequestContext } from "./context.js";
import { hasBody, lingerAfterAnswer } from "../http/body.js";
import { json, type Reply } from "../http/reply.js";
import { send, writeRaw } from "../http/respond.js";
import { CapReached, CAPACITY_RETRY_AFTER_SECONDS } from "../access/limits.js";
import { redact } from "./log.js";
import type { Services } from "./services.js";
import { runStages, TAKEN, type Outcome, type Stage } from "./stage.js";
import { countAnonymousHere, unavailable } from "../access/rate-answers.js";
import { DependencyUnavailable } from "../state/shared-state.js";

/** The context of each request being served, by its response (what node:http knows of a connection's request). */
// A symbol-keyed property of the response rather than a WeakMap: a WeakMap entry per request is an ephemeron
// the garbage collector must trace specially, and this runs on every request.
const SERVING = Symbol("serving");
type Serving = http.ServerResponse & { [SERVING]?: RequestContext };

/** Told of each request once its connection is done with it: its context and status (499: the client left first). */
export type Served = (ctx: RequestContext, status: number) => void;

export function serveRequests(s: Services, stages: readonly Stage[], served?: Served): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return function onRequest(req, res) {
    const ctx = new RequestContext(req, res);
    (res as Serving)[SERVING] = ctx;
    // 499 (as nginx logs it): the client closed the connection before an answer was sent.
    if (s.sink) res.on("close", () => s.logRequest(ctx, res.headersSent ? res.statusCode : 499));
    if (served) res.on("close", () => served(ctx, res.headersSent ? res.statusCode : 499));
    try {
      const out = runStages(stages, ctx);
      if (out instanceof Promise) void settle(s, ctx, out);
      else answer(s, ctx, out);
    } catch (e) {
      failed(s, ctx, e as Error);
    }
  };
}

async function settle(s: Services, ctx: RequestContext, pending: Promise<Outcome>): Promise<void> {
  try {
    answer(s, ctx, await pending);
  } catch (e) {
    failed(s, ctx, e as Error);
  }
}

function answer(s: Services, ctx: RequestContext, out: Outcome): void {
  if (out === TAKEN) return;
  if (out === undefined) throw new Error(`no stage answered ${ctx.method} ${ctx.pathname}`);
  // A body not read to its end (refused, or answered before it was wanted): the connection closes lingering
  // rather than reading the rest for the next request (decisions L2, G21).
  const unread = out.linger === true || (!ctx.req.complete && hasBody(ctx.req));
  if (unread) lingerAfterAnswer(ctx.req);
  // A request that may have changed the mock's state (a successful POST, PUT, PATCH or DELETE): with `--state`
  // it is in the database before the answer is sent, so an acknowledged change survives a crash (decision DB2).
  // Any other answer computed while such a change waits for its commit may show it: it waits too, and answers 500
  // if that commit fails (decision DB9: nothing is shown before it is durable).
  const changing = out.status < 400 && ctx.method !== "GET" && ctx.method !== "HEAD" && ctx.method !== "OPTIONS";
  if (changing || s.states.pending) {
    s.states.commitThen(
      () => send(ctx.res!, out, s.head, s.live.draining || unread, ctx.idHead),
      (e) => failed(s, ctx, e),
    );
  } else send(ctx.res!, out, s.head, s.live.draining || unread, ctx.idHead);
}

function failed(s: Services, ctx: RequestContext, e: Error): void {
  const { req, res } = ctx;
  // A cap met deep in a responder (limits.ts): its own answer, never a 500.
  if (e instanceof CapReached && !res!.headersSent) return answer(s, ctx, capReply(ctx, e));
  // A commit the database (or, with ownership, the lease: SB29) refused for want of it: the contract's 503, not a 500.
  if (e instanceof DependencyUnavailable && !res!.headersSent) return answer(s, ctx, unavailable(e));
  // A client that went away mid-request is no internal error: its request line (499) records it.
  if (req.destroyed && !req.complete) return;
  s.sink?.(`${new Date(s.clock.now()).toISOString()} internal error on ${req.method} ${redact(req.url ?? "")}: ${redact(e.stack ?? e.message)}`);
  if (!res!.headersSent) send(res!, json(500, { detail: "Internal server error. Retry with exponential backoff." }), s.head, s.live.draining, ctx.idHead);
  else res!.destroy();
}

/** The 403 `limit_reached` or 503 `capacity_exceeded` of a cap (limits.ts); a 503 says when to retry. */
export function capReply(ctx: RequestContext, e: CapReached): Reply {
  return ctx.json(e.status, { detail: e.message, error: e.kind }, e.status === 503 ? { "Retry-After": String(CAPACITY_RETRY_AFTER_SECONDS) } : undefined);
}

/** A refused upgrade is answered on the raw socket, which then closes; an accepted one is the last stage's. */
export function serveUpgrades(s: Services, stages: readonly Stage[]): (req: http.IncomingMessage, socket: Duplex, head: Buffer) => Promise<void> {
  return async function onUpgrade(req, socket, head) {
    const ctx = new RequestContext(req, null, { socket, head });
    let out: Outcome;
    try {
      out = await runStages(stages, ctx);
    } catch (e) {
      if (!(e instanceof CapReached)) throw e;
      out = capReply(ctx, e);
    }
    if (out === TAKEN || out === undefined) return;
    // With the headers every answer carries (CORS), as the contract's refusals declare them.
    writeRaw(socket, out, s.head, ctx.idHead);
    s.logRequest(ctx, out.status);
  };
}

/**
 * The rate-limit headers of an answer the server gives by itself (http/server.ts `refused`): those of the request
 * the pipeline is serving on that connection (it was counted, or is on a path that is not), else those of the
 * anonymous bucket of the client's address, in which it is counted now, or its 429 (decision G26).
 */
export function serveRefusals(s: Services): (socket: Duplex, reply: Reply, inFlight: http.ServerResponse | undefined) => Reply {
  const count = countAnonymousHere(s);
  return (socket, reply, inFlight) => {
    const ctx = inFlight && (inFlight as Serving)[SERVING];
    if (ctx) return { ...reply, rate: ctx.rate };
    const { rate, refused } = count((socket as Socket).remoteAddress);
    return refused ?? { ...reply, rate };
  };
}
