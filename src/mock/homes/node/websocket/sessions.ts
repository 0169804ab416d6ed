// What the mock plays on its WebSockets (message shapes: spec/asyncapi.yaml).
//  - /v1/stream: a live session. `session.started`, then results as if media were being recognised (partial and
//    final transcript, signals, alerts); `{"type":"stop"}` sends what is left plus `status completed` and
//    `completed`, then closes 1000; `{"type":"cancel"}` sends `status canceled` and closes 1000; 30 s (configurable)
//    without any frame from the client sends `error` and closes 1008, as does a control frame it cannot read.
//    The script (events.ts LiveScript) is the store's (the session's analysis is stored and its events logged) or,
//    in the stateless mock, a fixed one.
//  - /ws/analyses/{analysis_id}: the analysis's events (resuming after `last_event_id`), then close 1000.
//  Either ends at once when the credential that opened it is revoked: `error`, then close 1008 (access/revocation.ts).
import { idleTimer } from "../../../core/access/streams.js";
import type { WebSocket } from "ws";
import { play, resumeAfter, type LiveScript, type StreamEvent } from "../../../core/events/events.js";

/** An analysis's log as a stream reads it (store/log.ts `EventFeeds.follow`, bound to the log). */
export type Feed = (lastEventId: string | null, send: (e: StreamEvent) => void, end: () => void) => () => void;

export interface LiveSessionOptions {
  script: LiveScript;
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

/** The media type a live session's frames have, from its `encoding` and `media_type`. */
export function contentTypeOf(encoding: string, mediaType: string): string | null {
  const ct = Object.hasOwn(CONTENT_TYPES, encoding) ? CONTENT_TYPES[encoding]! : null; // `constructor` is no encoding
  return ct && mediaType === "video" ? ct.replace(/^audio\//, "video/") : ct;
}

function sendEvent(ws: WebSocket, e: StreamEvent): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(e));
}

/** The close code of a session whose credential was revoked: the contract's policy close, after an `error`. */
export const REVOKED_CLOSE = 1008;

/** Ends a session because its credential was revoked: an `error` message with `detail`, then close 1008. */
export type Revoke = (detail: string) => void;

export function runLiveSession(ws: WebSocket, o: LiveSessionOptions): Revoke {
  const s = o.script;
  const queue = [...s.results];
  const ac = new AbortController();
  let sent = 0;
  let done = false;
  let idle: NodeJS.Timeout | undefined;

  const end = (final: () => StreamEvent[], code: number, reason: string) => {
    if (done) return;
    done = true;
    ac.abort();
    clearTimeout(idle);
    for (const e of final()) sendEvent(ws, e);
    ws.close(code, reason);
  };
  const rest = () => queue.slice(sent).map((item) => s.send(item));
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => end(() => s.error(`No frames for ${Math.round(o.idleTimeoutMs / 1000)} seconds: the session ended.`), 1008, "idle timeout"), o.idleTimeoutMs);
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
        return end(() => [...rest(), ...s.finish()], 1000, "completed");
      case "cancel":
        return end(() => s.cancel(), 1000, "canceled");
      default:
        return end(
          () => s.error('Unknown control frame: send {"type": "stop"}, {"type": "cancel"} or {"type": "keep_alive"} as JSON text, media as binary frames.'),
          1008,
          "invalid control frame",
        );
    }
  });
  ws.on("close", () => {
    if (!done) end(() => s.error("The client closed the connection before sending stop."), 1000, "closed");
  });

  sendEvent(ws, s.started());
  for (const e of s.opening()) sendEvent(ws, e);
  armIdle();
  void play(
    queue,
    o.intervalMs,
    (item) => {
      sent++;
      sendEvent(ws, s.send(item));
    },
    ac.signal,
  );
  return (detail) => end(() => s.error(detail), REVOKED_CLOSE, "credential revoked");
}

/** The stateless mock: a fixed list of events, resumed after `lastEventId`, then close 1000. */
export function runAnalysisEvents(ws: WebSocket, events: StreamEvent[], lastEventId: string | null, intervalMs: number, errorId: string): Revoke {
  const ac = new AbortController();
  ws.on("close", () => ac.abort());
  void play(resumeAfter(events, lastEventId), intervalMs, (e) => sendEvent(ws, e), ac.signal).then((finished) => {
    if (finished && ws.readyState === ws.OPEN) ws.close(1000, "completed");
  });
  return (detail) => {
    ac.abort();
    closeWithError(ws, { event: "error", id: errorId, data: { detail } });
  };
}

function closeWithError(ws: WebSocket, e: StreamEvent): void {
  if (ws.readyState !== ws.OPEN) return;
  sendEvent(ws, e);
  ws.close(REVOKED_CLOSE, "credential revoked");
}

/**
 * The store: the analysis's event log, replayed after `lastEventId` and followed live, then close 1000 at its end;
 * after `idleMs` without an event (a resting analysis), close 1001 (streams.ts).
 */
export function followAnalysisLog(ws: WebSocket, feed: Feed, lastEventId: string | null, idleMs: number, errorId: () => string, breakAfter?: number): Revoke {
  const idle = idleTimer(idleMs, () => {
    if (ws.readyState === ws.OPEN) ws.close(1001, "idle: no event");
  });
  // A fault rule's break (faults.ts): after `breakAfter` events the connection drops, with no close frame.
  let sent = 0;
  const send = (e: StreamEvent) => {
    if (breakAfter !== undefined && sent >= breakAfter) return;
    idle.touch();
    sendEvent(ws, e);
    if (++sent === breakAfter) ws.terminate();
  };
  if (breakAfter === 0) ws.terminate();
  const stop = feed(
    lastEventId,
    send,
    () => {
      if (ws.readyState === ws.OPEN) ws.close(1000, "completed");
    },
  );
  ws.on("close", () => (idle.stop(), stop()));
  return (detail) => {
    idle.stop();
    stop();
    closeWithError(ws, { event: "error", id: errorId(), data: { detail } });
  };
}
