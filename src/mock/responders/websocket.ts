// Responder `webSocket` (upgrades): completes the upgrade with the rate-limit headers on the 101, then plays the
// analysis's events on /ws/analyses/{id} (resuming after `last_event_id`) or a live session on /v1/stream
// (sessions.ts).
import type http from "node:http";
import { newId } from "../events.js";
import { runAnalysisEvents, runLiveSession } from "../sessions.js";
import type { RequestContext } from "../context.js";
import type { Services } from "../services.js";
import { TAKEN, type StageFactory } from "../stage.js";
import { writeRaw } from "../http/respond.js";
import type { Reply } from "../http/reply.js";

/** The WebSocket versions ws accepts (RFC 6455's 13, and 8, the last draft's), as its own refusal lists them. */
export const WEBSOCKET_VERSIONS = "13, 8";

export const webSocket: StageFactory = (s) => {
  // The context of each upgrade ws is handling: its rate-limit headers go on the 101 (ws's `headers` event), or
  // on the refusal of a handshake ws finds invalid.
  const upgrading = new WeakMap<http.IncomingMessage, RequestContext>();
  s.wss.on("headers", (headers, req) => {
    const rate = upgrading.get(req)?.rate ?? [];
    for (let i = 0; i < rate.length; i += 2) headers.push(`${rate[i]}: ${rate[i + 1]}`);
  });
  s.wss.on("wsClientError", (error, socket, req) => {
    const ctx = upgrading.get(req);
    if (!ctx) return void socket.destroy();
    writeRaw(socket, handshakeRefused(ctx, error));
    s.logRequest(ctx, 400);
  });
  return function webSocket(ctx) {
    upgrading.set(ctx.req, ctx);
    const { socket, head } = ctx.upgrade!;
    s.wss.handleUpgrade(ctx.req, socket, head, (ws) => {
      s.logRequest(ctx, 101);
      s.live.sockets.add(ws);
      ws.on("close", () => s.live.sockets.delete(ws));
      ws.on("error", () => {}); // e.g. a frame over maxPayload: ws itself closes with 1009
      play(s, ctx, ws);
    });
    return TAKEN;
  };
};

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

function play(s: Services, ctx: RequestContext, ws: import("ws").WebSocket): void {
  const workspaceId = ctx.principal!.workspaceId;
  const analysisId = Object.values(ctx.params)[0];
  const q = ctx.query;
  if (analysisId) {
    runAnalysisEvents(ws, s.scripts.analysisEvents(analysisId, workspaceId), q.get("last_event_id"), s.settings.streamIntervalMs);
    return;
  }
  runLiveSession(ws, {
    scripts: s.scripts,
    analysisId: newId("anl", s.clock.now()),
    workspaceId,
    mediaType: q.get("media_type") ?? "audio",
    encoding: q.get("encoding") ?? "pcm_s16le",
    intervalMs: s.settings.streamIntervalMs,
    idleTimeoutMs: s.settings.wsIdleTimeoutMs,
  });
}
