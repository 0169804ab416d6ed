// Responder `webSocket` (upgrades): completes the upgrade with the rate-limit headers on the 101, then shows the
// analysis's events on /ws/analyses/{id} (resuming after `last_event_id`) or runs a live session on /v1/stream
// (sessions.ts). With the store, /ws/analyses follows the analysis's event log (an analysis not in the workspace
// answers 404 before the upgrade) and a live session stores its analysis; stateless, both play fixed scripts.
import type http from "node:http";
import type { WebSocket } from "ws";
import { eventStem, newId } from "../../../core/events/events.js";
import { contentTypeOf, followAnalysisLog, runAnalysisEvents, runLiveSession, type Revoke } from "./sessions.js";
import type { RequestContext } from "../../../core/pipeline/context.js";
import type { Services } from "../../../core/pipeline/services.js";
import type { EventLog, StreamEvent } from "../../../core/store/log.js";
import type { LiveScript } from "../../../core/events/events.js";
import { liveSession } from "../../../core/store/live.js";
import { TAKEN, type StageFactory } from "../../../core/pipeline/stage.js";
import { writeRaw } from "../../../core/http/respond.js";
import type { Reply } from "../../../core/http/reply.js";

/** The WebSocket versions ws accepts (RFC 6455's 13, and 8, the last draft's), as its own refusal lists them. */
export const WEBSOCKET_VERSIONS = "13, 8";

export const webSocket: StageFactory = (s) => {
  const wss = s.wss;
  if (!wss) throw new Error("WebSocket upgrades need a WebSocket server (the Node platform's)");
  // The context of each upgrade ws is handling: its rate-limit headers go on the 101 (ws's `headers` event), or
  // on the refusal of a handshake ws finds invalid.
  const upgrading = new WeakMap<http.IncomingMessage, RequestContext>();
  wss.on("headers", (headers, req) => {
    const rate = upgrading.get(req)?.rate ?? [];
    for (let i = 0; i < rate.length; i += 2) headers.push(`${rate[i]}: ${rate[i + 1]}`);
  });
  wss.on("wsClientError", (error, socket, req) => {
    const ctx = upgrading.get(req);
    if (!ctx) return void socket.destroy();
    writeRaw(socket, handshakeRefused(ctx, error));
    s.logRequest(ctx, 400);
  });
  return function webSocket(ctx) {
    const analysisId = Object.values(ctx.params)[0];
    let log: EventLog | undefined;
    if (analysisId !== undefined && !s.settings.stateless) {
      log = s.store.eventLog(ctx.principal!.workspaceId, analysisId);
      if (!log) return ctx.json(404, { detail: s.store.missingStream(analysisId) });
    }
    // A live session stores an analysis: its caps answer before the upgrade (limits.ts), never after it.
    if (analysisId === undefined && !s.settings.stateless && s.store.streamed) s.store.checkRoom(s.store.workspace(ctx.principal!.workspaceId), s.store.streamed.coll);
    upgrading.set(ctx.req, ctx);
    const { socket, head } = ctx.upgrade!;
    // A slot of its workspace and address (streams.ts), taken before the upgrade (over a cap: its answer, thrown)
    // and given back when the socket closes, whether the handshake succeeded or not.
    const release = s.slots.take(ctx.principal!.workspaceId, ctx.req.socket.remoteAddress ?? "");
    socket.once("close", release);
    const script = analysisId === undefined ? liveScript(s, ctx) : undefined;
    const upgrade = () =>
      wss.handleUpgrade(ctx.req, socket, head, (ws) => {
        s.logRequest(ctx, 101);
        s.live.sockets.add(ws);
        ws.on("error", () => {}); // e.g. a frame over maxPayload: ws itself closes with 1009
        // Held under its credential (revocation.ts): revoking it ends the session with `error` and close 1008.
        const forget = s.openStreams.hold(ctx.principal!.revocable ?? [], play(s, ctx, ws, analysisId, log, script));
        ws.on("close", () => (s.live.sockets.delete(ws), forget()));
      });
    if (!script || s.settings.stateless) {
      upgrade();
      return TAKEN;
    }
    // The session's analysis is written before `session.started` announces it (decision DB14): the upgrade waits
    // for its commit, and a commit that fails (a full disk) refuses the session with 503; memory is put back, so
    // the analysis was never there.
    s.states.commitThen(
      () => {
        if (socket.destroyed) return void script.error("The client left before the session started.");
        upgrade();
      },
      (e) => {
        s.sink?.(`${new Date(s.clock.now()).toISOString()} live session refused: its analysis could not be written: ${e.message}`);
        writeRaw(socket, ctx.json(503, { detail: NOT_WRITTEN }, { "Retry-After": String(NOT_WRITTEN_RETRY_AFTER_SECONDS) }), s.head, ctx.idHead);
        s.logRequest(ctx, 503);
      },
    );
    return TAKEN;
  };
};

/** The `detail` of a live session refused because its analysis could not be written (a full disk). */
export const NOT_WRITTEN = "The session could not start: its analysis could not be stored. Retry with exponential backoff.";
const NOT_WRITTEN_RETRY_AFTER_SECONDS = 1;

/**
 * ws checks the handshake (RFC 6455 §4.2.1: Upgrade, Sec-WebSocket-Key, Sec-WebSocket-Version, the subprotocol
 * list) and, given a `wsClientError` listener, leaves the refusal to us instead of answering with HTML: 400 with the
 * contract's `{detail}` and the request's rate-limit headers, and, for a version it does not speak, the versions it
 * does (RFC 6455 §4.4), as ws itself would send them (decision G25).
 */
function handshakeRefused(ctx: RequestContext, error: Error): Reply {
  const version = /Sec-WebSocket-Version/i.test(error.message) ? { "Sec-WebSocket-Version": WEBSOCKET_VERSIONS } : undefined;
  return ctx.json(400, { detail: `Not a valid WebSocket handshake: ${error.message}.` }, version);
}

/** A live session's script: with the store, its analysis is created now (stored and logged); stateless, a fixed one. */
function liveScript(s: Services, ctx: RequestContext): LiveScript {
  const workspaceId = ctx.principal!.workspaceId;
  const q = ctx.query;
  const mediaType = q.get("media_type") ?? "audio";
  const opts = { mediaType, contentType: contentTypeOf(q.get("encoding") ?? "pcm_s16le", mediaType) };
  return s.settings.stateless ? s.scripts.liveSession(newId("anl", s.clock.now()), workspaceId, opts) : liveSession(s.store, workspaceId, ctx.route, q, opts);
}

function play(s: Services, ctx: RequestContext, ws: WebSocket, analysisId: string | undefined, log: EventLog | undefined, script: LiveScript | undefined): Revoke {
  const workspaceId = ctx.principal!.workspaceId;
  const q = ctx.query;
  const lastEventId = q.get("last_event_id");
  const feed = (last: string | null, send: (e: StreamEvent) => void, end: () => void) => s.feeds.follow(workspaceId, log!, last, send, end);
  if (log) return followAnalysisLog(ws, feed, lastEventId, s.settings.limits.streamIdleMs, () => log.allocate(), s.faults.breakAfter(ctx.route.operationId, analysisId!, workspaceId));
  if (analysisId) {
    const events = s.scripts.analysisEvents(analysisId, workspaceId);
    return runAnalysisEvents(ws, events, lastEventId, s.settings.streamIntervalMs, `evt_${eventStem(analysisId)}${String(events.length + 1).padStart(4, "0")}`);
  }
  return runLiveSession(ws, { script: script!, intervalMs: s.settings.streamIntervalMs, idleTimeoutMs: s.settings.wsIdleTimeoutMs });
}
