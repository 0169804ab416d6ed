// What the mock plays on its WebSockets (message shapes: spec/asyncapi.yaml).
//  - /v1/stream: a live session. `session.started`, then results as if media were being recognised (partial and
//    final transcript, signals, alerts); `{"type":"stop"}` sends what is left plus `status completed` and
//    `completed`, then closes 1000; `{"type":"cancel"}` sends `status canceled` and closes 1000; 30 s (configurable)
//    without any frame from the client sends `error` and closes 1008, as does a control frame it cannot read.
//  - /ws/analyses/{analysis_id}: the analysis's events (resuming after `last_event_id`), then close 1000.
import type { WebSocket } from "ws";
import { play, resumeAfter, type EventScripts, type StreamEvent } from "./events.js";

export interface LiveSessionOptions {
  scripts: EventScripts;
  analysisId: string;
  workspaceId: string;
  mediaType: string;
  encoding: string;
  intervalMs: number;
  idleTimeoutMs: number;
}

const CONTENT_TYPES: Record<string, string> = {
  pcm_s16le: "audio/L16",
  pcm_mulaw: "audio/basic",
  opus: "audio/opus",
  flac: "audio/flac",
  webm: "audio/webm",
  fmp4: "audio/mp4",
};

function contentTypeOf(encoding: string, mediaType: string): string | null {
  const ct = Object.hasOwn(CONTENT_TYPES, encoding) ? CONTENT_TYPES[encoding]! : null; // `constructor` is no encoding
  return ct && mediaType === "video" ? ct.replace(/^audio\//, "video/") : ct;
}

function sendEvent(ws: WebSocket, e: StreamEvent): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(e));
}

export function runLiveSession(ws: WebSocket, o: LiveSessionOptions): void {
  const s = o.scripts.liveSession(o.analysisId, o.workspaceId, { mediaType: o.mediaType, contentType: contentTypeOf(o.encoding, o.mediaType) });
  const queue = [...s.opening, ...s.results];
  const ac = new AbortController();
  let sent = 0;
  let done = false;
  let idle: NodeJS.Timeout | undefined;

  const end = (events: StreamEvent[], code: number, reason: string) => {
    if (done) return;
    done = true;
    ac.abort();
    clearTimeout(idle);
    for (const e of events) sendEvent(ws, e);
    ws.close(code, reason);
  };
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(
      () => end([s.error(`No frames for ${Math.round(o.idleTimeoutMs / 1000)} seconds: the session ended.`)], 1008, "idle timeout"),
      o.idleTimeoutMs,
    );
  };

  ws.on("message", (data, isBinary) => {
    if (done) return;
    armIdle();
    if (isBinary) return; // media: the mock's recognizer is a script, the bytes are only acknowledged by reading them
    let msg: { type?: unknown } | null = null;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      /* handled below */
    }
    switch (msg?.type) {
      case "keep_alive":
        return;
      case "stop":
        return end([...queue.slice(sent), ...s.finish()], 1000, "completed");
      case "cancel":
        return end(s.cancel(), 1000, "canceled");
      default:
        return end(
          [s.error('Unknown control frame: send {"type": "stop"}, {"type": "cancel"} or {"type": "keep_alive"} as JSON text, media as binary frames.')],
          1008,
          "invalid control frame",
        );
    }
  });
  ws.on("close", () => {
    done = true;
    ac.abort();
    clearTimeout(idle);
  });

  sendEvent(ws, s.started);
  armIdle();
  void play(
    queue,
    o.intervalMs,
    (e) => {
      sent++;
      sendEvent(ws, e);
    },
    ac.signal,
  );
}

export function runAnalysisEvents(ws: WebSocket, events: StreamEvent[], lastEventId: string | null, intervalMs: number): void {
  const ac = new AbortController();
  ws.on("close", () => ac.abort());
  void play(resumeAfter(events, lastEventId), intervalMs, (e) => sendEvent(ws, e), ac.signal).then((finished) => {
    if (finished && ws.readyState === ws.OPEN) ws.close(1000, "completed");
  });
}
