// Responder `sse`: the operations whose success is `text/event-stream`. With the store, the stream is a view of
// the analysis's event log (store/log.ts): without `Last-Event-ID` it replays the log, with it resumes after that
// event, then follows live, with a `: keep-alive` comment every 15 s of silence, until the log ends; an analysis
// not in the workspace answers 404, and a finished one whose last event the client has already seen answers 204,
// which stops a browser's EventSource from reconnecting. `stream_error` ends the stream with an `error` event after
// the replay. In the stateless mock it plays a fixed script (events.ts), one event every `streamIntervalMs`.
// Prefer asking for another response or a named example leaves the answer to the examples.
import type { ServerResponse } from "node:http";
import type { Route } from "../contract/contract-build.js";
import { eventStem, newId, play, resumeAfter, sseMessage, type StreamEvent } from "../events/events.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Reply } from "../http/reply.js";
import type { Services } from "../pipeline/services.js";
import type { EventLog } from "../store/log.js";
import { unavailable } from "../access/rate-answers.js";
import { idleTimer } from "../access/streams.js";
import { unref } from "../util/sleep.js";
import { only, TAKEN, type Outcome, type StageFactory } from "../pipeline/stage.js";

const SSE_HEAD = [
  "Content-Type",
  "text/event-stream; charset=utf-8",
  "Cache-Control",
  "no-cache, no-transform",
  // No Connection header: node:http manages it. A forced `keep-alive` contradicted a client's `Connection:
  // close`, whose response is then delimited by closing the connection, and the client reused the socket.
  "X-Accel-Buffering",
  "no",
];

/** The reason a stream is aborted with when the gateway drains (SIGTERM): it ends with `RECONNECT_HINT`. */
export const DRAINING = "draining";

/**
 * The last bytes of a stream ended by a drain (decision SB11): `retry:` sets the EventSource's reconnection delay,
 * and the comment says why; the EventSource reconnects with Last-Event-ID, through the balancer, to another replica.
 */
export const RECONNECT_HINT = "retry: 1000\n: the server restarts: reconnect with Last-Event-ID\n\n";

/** A comment line every this many ms of silence keeps proxies from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;

export const sse: StageFactory = (s) => {
  const streaming = new Set<Route>(s.contract.router.routes.filter((r) => r.op.responses?.[String(r.successCode)]?.content?.["text/event-stream"]));
  return only(function sse(ctx) {
    if (!streaming.has(ctx.route) || !ctx.wantsSuccess() || ctx.prefer.example !== undefined) return undefined;
    if (s.settings.stateless || ctx.prefer.code !== undefined) {
      // Prefer: code=200 asks for the documented answer, whatever the store holds: the examples' script.
      scripted(s, ctx);
      return TAKEN;
    }
    return fromLog(s, ctx);
  }, (route) => streaming.has(route));
};

/**
 * Opens the event stream, in a slot of its workspace and address (streams.ts: over a cap, the cap's answer is
 * thrown before anything is written); the returned function ends it. The stream is held under its credential
 * (revocation.ts): revoking it ends the stream with an `error` event whose id is `errorId()`.
 */
function open(s: Services, ctx: RequestContext, onClose: () => void, errorId: () => string): () => void {
  const release = s.slots.take(ctx.principal!.workspaceId, ctx.req.socket.remoteAddress ?? "");
  const res = ctx.res!;
  res.writeHead(200, [...s.head, ...ctx.idHead, ...ctx.rate, ...SSE_HEAD]);
  res.flushHeaders();
  const ac = new AbortController();
  s.live.streams.add(ac);
  let ended = false;
  const forget = s.openStreams.hold(ctx.principal!.revocable ?? [], (detail) => {
    if (!ended) res.write(sseMessage({ event: "error", id: errorId(), data: { detail } }));
    end();
  });
  const end = () => {
    if (ended) return;
    ended = true;
    forget();
    s.live.streams.delete(ac);
    release();
    onClose();
    res.end();
  };
  ac.signal.addEventListener("abort", () => {
    if (ac.signal.reason === DRAINING && !ended) res.write(RECONNECT_HINT);
    end();
  });
  res.on("close", end);
  return end;
}

function lastEventId(ctx: RequestContext): string | null {
  const v = ctx.req.headers["last-event-id"];
  return typeof v === "string" ? v : null;
}

function fromLog(s: Services, ctx: RequestContext): Outcome | Promise<Outcome> {
  const id = Object.values(ctx.params)[0] ?? "";
  const log = s.store.eventLog(ctx.principal!.workspaceId, id);
  if (!log) return ctx.json(404, { detail: s.store.missingStream(id) });
  const last = lastEventId(ctx);
  const workspaceId = ctx.principal!.workspaceId;
  const seen = s.feeds.hasSeenAll(workspaceId, log, last);
  if (seen instanceof Promise) return seen.then((all) => (all ? noMore(ctx) : streamLog(s, ctx, log, last)), unavailable);
  return seen ? noMore(ctx) : streamLog(s, ctx, log, last);
}

/** 204: a finished stream whose last event the client has seen (an EventSource stops reconnecting). */
function noMore(ctx: RequestContext): Reply {
  return { status: 204, headers: {}, body: null, rate: ctx.rate };
}

function streamLog(s: Services, ctx: RequestContext, log: EventLog, last: string | null): typeof TAKEN {
  const id = log.resourceId;
  const res = ctx.res!;
  const write = breaking(res, s.faults.breakAfter(ctx.route.operationId, id, ctx.principal!.workspaceId));
  if (ctx.scenario === "stream_error") {
    const end = open(s, ctx, () => {}, () => log.allocate());
    for (const e of log.after(last)) write(e);
    write({ event: "error", id: log.allocate(), data: { detail: "The stream broke (scenario stream_error): reconnect with Last-Event-ID to resume." } });
    end();
    return TAKEN;
  }
  let keepAlive: NodeJS.Timeout | undefined;
  let stop = () => {};
  let idle: { touch(): void; stop(): void } | undefined;
  const end = open(s, ctx, () => {
    clearInterval(keepAlive);
    idle?.stop();
    stop();
  }, () => log.allocate());
  keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  unref(keepAlive);
  // A stream that shows no event for `streamIdleMs` (a resting analysis) ends: keep-alive comments do not count.
  idle = idleTimer(s.settings.limits.streamIdleMs, end);
  stop = s.feeds.follow(ctx.principal!.workspaceId, log, last, (e) => (idle!.touch(), write(e)), end);
  return TAKEN;
}

/**
 * Writes each event; with a fault rule's `breakAfter` (faults.ts), the connection is closed after that many events,
 * without the stream's closing event, as a dropped connection is (an EventSource reconnects with Last-Event-ID).
 */
function breaking(res: ServerResponse, breakAfter: number | undefined): (e: StreamEvent) => void {
  if (breakAfter === undefined) return (e) => res.write(sseMessage(e));
  let sent = 0;
  // Destroyed once the last bytes are handed to the socket, so they arrive before the cut.
  const cut = () => res.destroy();
  if (breakAfter === 0) res.write(": the connection breaks here (fault rule)\n\n", cut);
  return (e) => {
    if (sent >= breakAfter) return;
    if (++sent === breakAfter) res.write(sseMessage(e), cut);
    else res.write(sseMessage(e));
  };
}

/** The stateless mock: the fixed event script of an analysis, paced. */
function scripted(s: Services, ctx: RequestContext): void {
  const res = ctx.res!;
  const analysisId = Object.values(ctx.params)[0] ?? newId("anl", s.clock.now());
  const all = s.scripts.analysisEvents(analysisId, ctx.principal!.workspaceId);
  const events = resumeAfter(all, lastEventId(ctx));
  const ac = new AbortController();
  const end = open(s, ctx, () => ac.abort(), () => `evt_${eventStem(analysisId)}${String(all.length + 1).padStart(4, "0")}`);
  const write = breaking(res, s.faults.breakAfter(ctx.route.operationId, analysisId, ctx.principal!.workspaceId));
  void play(events, s.settings.streamIntervalMs, write, ac.signal).then(end);
}
