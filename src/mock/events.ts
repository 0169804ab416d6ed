// The real-time events the mock plays, built from the contract's own examples (Analysis, Transcript, SignalList,
// AlertList), so they always match its schemas: the event sequence of one analysis (SSE stream and the
// /ws/analyses WebSocket) and the script of a live /v1/stream session.
import { setTimeout as sleep } from "node:timers/promises";
import type { Contract, Json } from "./contract.js";

export interface StreamEvent {
  event: string;
  id: string;
  data: Json;
}

const REQUIRED_EXAMPLES = ["Analysis", "Transcript", "SignalList", "AlertList"] as const;

interface Templates {
  analysis: Json;
  segments: Json[];
  signals: Json[];
  alerts: Json[];
}

/** Replaces every `key` property, at any depth, whose value is a string, with `value`. */
function replaceKey(node: Json, key: string, value: string): Json {
  if (Array.isArray(node)) return node.map((n) => replaceKey(n, key, value));
  if (node && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === key && typeof v === "string" ? value : replaceKey(v, key, value)]));
  }
  return node;
}

const RANDOM_CHARS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A prefixed id with a ULID-like 26-character suffix (`anl_01…`). */
export function newId(prefix: string, now = Date.now()): string {
  let time = "";
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = RANDOM_CHARS[t % 32] + time;
  let rand = "";
  for (let i = 0; i < 16; i++) rand += RANDOM_CHARS[Math.floor(Math.random() * 32)];
  return `${prefix}_${time}${rand}`;
}

export class EventScripts {
  private readonly t: Templates;

  constructor(contract: Contract) {
    const examples: Record<string, Json> = contract.doc.components?.examples ?? {};
    const missing = REQUIRED_EXAMPLES.filter((n) => examples[n]?.value === undefined);
    if (missing.length) throw new Error(`the contract lacks the examples the mock's event streams are built from: ${missing.join(", ")}`);
    this.t = {
      analysis: examples.Analysis.value,
      segments: examples.Transcript.value.segments ?? [],
      signals: examples.SignalList.value.data ?? [],
      alerts: examples.AlertList.value.data ?? [],
    };
  }

  /**
   * The events of one analysis from `queued` to `completed`: status and progress, transcript segments and
   * signals in media-time order, each alert right after the signal that raised it, then the final analysis.
   */
  analysisEvents(analysisId: string, workspaceId: string): StreamEvent[] {
    const ids = eventIds(analysisId);
    const own = (n: Json) => replaceKey(replaceKey(structuredClone(n), "analysis_id", analysisId), "workspace_id", workspaceId);
    const status = (s: string, progress: number) => ({ event: "status", data: { analysis_id: analysisId, status: s, progress } });
    const body: Array<{ event: string; data: Json }> = [];
    for (const item of this.mediaOrder()) {
      body.push({ event: item.kind, data: own(item.value) });
      if (item.kind === "signal") {
        for (const a of this.t.alerts.filter((x) => x.signal_id === item.value.id)) body.push({ event: "alert", data: own(liveAlert(a)) });
      }
    }
    // Progress updates spread through the results.
    const out: Array<{ event: string; data: Json }> = [status("queued", 0), status("processing", 5)];
    let reported = 5;
    body.forEach((e, i) => {
      out.push(e);
      const progress = Math.round(5 + ((i + 1) / body.length) * 90);
      if (i < body.length - 1 && progress - reported >= 20) out.push(status("processing", (reported = progress)));
    });
    out.push(status("completed", 100));
    const analysis = own(this.t.analysis);
    out.push({ event: "completed", data: { ...analysis, id: analysisId, status: "completed", progress: 100 } });
    return out.map((e, i) => ({ ...e, id: ids(i) }));
  }

  /** The events of a live `/v1/stream` session, split by when they are sent; ids increase in sending order. */
  liveSession(analysisId: string, workspaceId: string, opts: { mediaType: string; contentType: string | null }) {
    const all = this.analysisEvents(analysisId, workspaceId);
    const ids = eventIds(analysisId);
    let n = 0;
    const next = () => ids(n++);
    const status = (s: string, progress: number): StreamEvent => ({ event: "status", id: next(), data: { analysis_id: analysisId, status: s, progress } });
    const started: StreamEvent = { event: "session.started", id: next(), data: { analysis_id: analysisId } };
    const opening = [status("processing", 0)];
    const results: StreamEvent[] = [];
    for (const e of all) {
      if (e.event === "status" || e.event === "completed") continue;
      if (e.event === "transcript.segment") {
        // Interim text first, as a recognizer produces it, then the final segment that replaces it.
        const words = String(e.data.text ?? "").split(" ");
        const partial = { start: e.data.start, end: e.data.end, speaker_label: e.data.speaker_label ?? null, text: words.slice(0, Math.ceil(words.length / 2)).join(" ") };
        results.push({ event: "transcript.partial", id: next(), data: partial });
      }
      results.push({ ...e, id: next() });
    }
    const completedTemplate = all[all.length - 1]!.data;
    const lastEnd = Math.max(0, ...this.t.segments.map((s) => Number(s.end) || 0));
    return {
      started,
      opening,
      results,
      finish: (): StreamEvent[] => [
        status("completed", 100),
        {
          event: "completed",
          id: next(),
          data: {
            ...completedTemplate,
            media_type: opts.mediaType,
            source: { type: "stream", url: null, filename: null, content_type: opts.contentType, size_bytes: null },
            duration_seconds: lastEnd,
          },
        },
      ],
      cancel: (): StreamEvent[] => [status("canceled", 0)],
      error: (detail: string): StreamEvent => ({ event: "error", id: next(), data: { detail } }),
    };
  }

  private mediaOrder(): Array<{ kind: "transcript.segment" | "signal"; value: Json; at: number }> {
    const items = [
      ...this.t.segments.map((s) => ({ kind: "transcript.segment" as const, value: s, at: Number(s.end ?? s.start ?? 0) })),
      ...this.t.signals.map((s) => ({ kind: "signal" as const, value: s, at: Number(s.end ?? s.start ?? Infinity) })),
    ];
    return items.sort((a, b) => a.at - b.at);
  }
}

/** An alert as it is when raised: open, not yet acknowledged or resolved. */
function liveAlert(a: Json): Json {
  return { ...a, status: "open", acknowledged_at: null, resolved_at: null };
}

/** Increasing event ids of one analysis: `evt_` + part of the analysis id + a sequence number. */
function eventIds(analysisId: string): (i: number) => string {
  const stem = analysisId.replace(/^[a-z]+_/, "").replace(/[^0-9A-Za-z]/g, "").slice(0, 20).padEnd(8, "0");
  return (i) => `evt_${stem}${String(i + 1).padStart(4, "0")}`;
}

/** The events after `lastEventId` (all of them when it is absent or unknown). */
export function resumeAfter(events: StreamEvent[], lastEventId: string | null | undefined): StreamEvent[] {
  if (!lastEventId) return events;
  const i = events.findIndex((e) => e.id === lastEventId);
  return i < 0 ? events : events.slice(i + 1);
}

/** Sends events one by one, `intervalMs` apart, until done or aborted. Resolves false when aborted. */
export async function play(events: StreamEvent[], intervalMs: number, send: (e: StreamEvent) => void, signal: AbortSignal): Promise<boolean> {
  for (const e of events) {
    if (signal.aborted) return false;
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return false;
    }
    send(e);
  }
  return !signal.aborted;
}

/** One SSE message: `id:`, `event:` and a single `data:` line holding the JSON of `data`. */
export function sseMessage(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
