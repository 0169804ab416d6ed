// Responder `sse`: the operations whose success is `text/event-stream` play the analysis's event sequence
// (events.ts), resuming after `Last-Event-ID`, one event every `streamIntervalMs`, then end the stream. Prefer
// asking for another response or a named example leaves the answer to the examples.
import type { Route } from "../contract.js";
import { newId, play, resumeAfter, sseMessage } from "../events.js";
import type { RequestContext } from "../context.js";
import type { Services } from "../services.js";
import { TAKEN, type StageFactory } from "../stage.js";

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

export const sse: StageFactory = (s) => {
  const streaming = new Set<Route>(s.contract.router.routes.filter((r) => r.op.responses?.[String(r.successCode)]?.content?.["text/event-stream"]));
  return function sse(ctx) {
    if (!streaming.has(ctx.route) || !ctx.wantsSuccess() || ctx.prefer.example !== undefined) return undefined;
    stream(s, ctx);
    return TAKEN;
  };
};

function stream(s: Services, ctx: RequestContext): void {
  const res = ctx.res!;
  const analysisId = Object.values(ctx.params)[0] ?? newId("anl");
  const lastEventId = ctx.req.headers["last-event-id"];
  const events = resumeAfter(s.scripts.analysisEvents(analysisId, ctx.principal!.workspaceId), typeof lastEventId === "string" ? lastEventId : null);
  res.writeHead(200, [...s.head, ...ctx.rate, ...SSE_HEAD]);
  res.flushHeaders();
  const ac = new AbortController();
  s.live.streams.add(ac);
  res.on("close", () => {
    ac.abort();
    s.live.streams.delete(ac);
  });
  void play(events, s.settings.streamIntervalMs, (e) => res.write(sseMessage(e)), ac.signal).then(() => {
    s.live.streams.delete(ac);
    res.end();
  });
}
