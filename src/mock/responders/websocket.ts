// Responder `webSocket` (upgrades): completes the upgrade with the rate-limit headers on the 101, then plays the
// analysis's events on /ws/analyses/{id} (resuming after `last_event_id`) or a live session on /v1/stream
// (sessions.ts).
import type http from "node:http";
import { newId } from "../events.js";
import { runAnalysisEvents, runLiveSession } from "../sessions.js";
import type { RequestContext } from "../context.js";
import type { Services } from "../services.js";
import { TAKEN, type StageFactory } from "../stage.js";

export const webSocket: StageFactory = (s) => {
  // The rate-limit headers of each upgrade, added to its 101 by ws's `headers` event.
  const extra = new WeakMap<http.IncomingMessage, readonly string[]>();
  s.wss.on("headers", (headers, req) => {
    const rate = extra.get(req) ?? [];
    for (let i = 0; i < rate.length; i += 2) headers.push(`${rate[i]}: ${rate[i + 1]}`);
  });
  return function webSocket(ctx) {
    extra.set(ctx.req, ctx.rate);
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
