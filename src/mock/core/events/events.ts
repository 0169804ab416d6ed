// The real-time events of an analysis, built from the contract's own examples (Analysis, Transcript, SignalList,
// AlertList, AnalysisSpeakerList), so they always match its schemas. The pieces are shared by two users:
//   - the stateful store (store/analysis.ts), which releases an analysis's content while it is processing and
//     writes each event into the analysis's event log;
//   - the stateless mock (`--stateless`), whose SSE stream and WebSockets play a fixed script (EventScripts).
import { sleep } from "../util/sleep.js";
import type { Contract, Json } from "../contract/contract-build.js";
import { randomChars, type Random } from "../util/ids.js";

export interface StreamEvent {
  event: string;
  id: string;
  data: Json;
}

/** An event before it has an id. */
export interface Item {
  event: string;
  data: Json;
}

const REQUIRED_EXAMPLES = ["Analysis", "Transcript", "SignalList", "AlertList"] as const;

/** The examples an analysis's content is made of. */
export interface Templates {
  analysis: Json;
  transcript: Json;
  segments: Json[];
  signals: Json[];
  alerts: Json[];
  speakers: Json[];
}

/** Replaces every `key` property, at any depth, whose value is a string, with `value`. */
export function replaceKey(node: Json, key: string, value: string): Json {
  if (Array.isArray(node)) return node.map((n) => replaceKey(n, key, value));
  if (node && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === key && typeof v === "string" ? value : replaceKey(v, key, value)]));
  }
  return node;
}

const RANDOM_CHARS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A prefixed id with a ULID-like 26-character suffix (`anl_01…`): `now`'s time, then 16 random characters from
 * WebCrypto. With `random` (a seeded simulation's) all 26 are drawn from it, so the same seed mints the same ids
 * whatever the time.
 */
export function newId(prefix: string, now: number, random?: Random): string {
  let time = "";
  if (random) for (let i = 0; i < 10; i++) time += RANDOM_CHARS[Math.floor(random() * 32)];
  else for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = RANDOM_CHARS[t % 32] + time;
  // Unseeded, from WebCrypto (ids.ts randomChars; 32 divides 256, so no byte is drawn again); seeded, the stream's.
  return `${prefix}_${time}${randomChars(RANDOM_CHARS, 16, random)}`;
}

/**
 * Copies of `values` whose `id`s are new (same prefix), with every reference to an old id among them (an alert's
 * `signal_id`) following: the content of a new analysis is the examples' content under ids of its own.
 */
export function freshIds(values: Json[], now: number, random?: Random): Json[] {
  const renamed = new Map<string, string>();
  for (const v of values) if (typeof v?.id === "string" && /^[a-z]+_/.test(v.id)) renamed.set(v.id, newId(v.id.slice(0, v.id.indexOf("_")), now, random));
  const swap = (n: Json): Json => {
    if (typeof n === "string") return renamed.get(n) ?? n;
    if (Array.isArray(n)) return n.map(swap);
    if (n && typeof n === "object") return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, swap(v)]));
    return n;
  };
  return values.map(swap);
}

/** An alert as it is when raised: open, not yet acknowledged or resolved. */
export function liveAlert(a: Json): Json {
  return { ...a, status: "open", acknowledged_at: null, resolved_at: null };
}

/**
 * The content events of an analysis in media-time order: transcript segments and signals by their end, each
 * alert right after the signal that raised it (as raised: open).
 */
export function mediaOrder(segments: Json[], signals: Json[], alerts: Json[]): Item[] {
  const items = [
    ...segments.map((s) => ({ kind: "transcript.segment", value: s, at: Number(s.end ?? s.start ?? 0) })),
    ...signals.map((s) => ({ kind: "signal", value: s, at: Number(s.end ?? s.start ?? Infinity) })),
  ].sort((a, b) => a.at - b.at);
  const out: Item[] = [];
  for (const item of items) {
    out.push({ event: item.kind, data: item.value });
    if (item.kind === "signal") for (const a of alerts.filter((x) => x.signal_id === item.value.id)) out.push({ event: "alert", data: liveAlert(a) });
  }
  return out;
}

/** The progress an analysis reports when processing starts, and how it grows with its content (5 → 95). */
export const PROCESSING_START_PROGRESS = 5;

/** Where the progress reports of content stop: the last step (to 100) is the resource's completion. */
const PROCESSING_END_PROGRESS = PROCESSING_START_PROGRESS + 90;

/**
 * `body` with a progress report (`status(progress)`) each time the share of content sent has grown by at least 20
 * points, never after the last item. The reports spread from `from` (where the resource stands: a seeded analysis
 * shown at 42 goes on from 42, never back to 28; issue 31) to 95, so progress only goes forward.
 */
export function withProgress(body: Item[], status: (progress: number) => Item, from = PROCESSING_START_PROGRESS): Item[] {
  const out: Item[] = [];
  const span = Math.max(0, PROCESSING_END_PROGRESS - from);
  let reported = from;
  body.forEach((e, i) => {
    out.push(e);
    const progress = Math.round(from + ((i + 1) / body.length) * span);
    if (i < body.length - 1 && progress - reported >= 20) out.push(status((reported = progress)));
  });
  return out;
}

/** A `transcript.partial` (WebSocket only): the first half of a segment's words, as a recognizer shows them first. */
export function partialOf(segment: Json): Json {
  const words = String(segment.text ?? "").split(" ");
  return { start: segment.start, end: segment.end, speaker_label: segment.speaker_label ?? null, text: words.slice(0, Math.ceil(words.length / 2)).join(" ") };
}

/** The examples the content is made of; throws when the contract lacks one. */
export function readTemplates(contract: Contract): Templates {
  const examples: Record<string, Json> = contract.doc.components?.examples ?? {};
  const missing = REQUIRED_EXAMPLES.filter((n) => examples[n]?.value === undefined);
  if (missing.length) throw new Error(`the contract lacks the examples the mock's event streams are built from: ${missing.join(", ")}`);
  return {
    analysis: examples.Analysis.value,
    transcript: examples.Transcript.value,
    segments: examples.Transcript.value.segments ?? [],
    signals: examples.SignalList.value.data ?? [],
    alerts: examples.AlertList.value.data ?? [],
    speakers: examples.AnalysisSpeakerList?.value?.data ?? [],
  };
}

/** What a live `/v1/stream` session sends, in order; `send` gives an item its id (and, in the store, records it). */
export interface LiveScript {
  analysisId: string;
  started(): StreamEvent;
  opening(): StreamEvent[];
  results: Item[];
  send(item: Item): StreamEvent;
  /** `stop`: the final events (call after the remaining results are sent). */
  finish(): StreamEvent[];
  /** `cancel`: the final events. */
  cancel(): StreamEvent[];
  /** The session ended because of the client (idle, unreadable frame): the final events. */
  error(detail: string): StreamEvent[];
}

/** Options of a live session that show in its analysis. */
export interface LiveOptions {
  mediaType: string;
  contentType: string | null;
}

/** The scripts of the stateless mock: every analysis plays the examples' events from `queued` to `completed`. */
export class EventScripts {
  readonly t: Templates;

  constructor(contract: Contract) {
    this.t = readTemplates(contract);
  }

  private own(analysisId: string, workspaceId: string) {
    return (n: Json) => replaceKey(replaceKey(structuredClone(n), "analysis_id", analysisId), "workspace_id", workspaceId);
  }

  /** The events of one analysis from `queued` to `completed`, with ids. */
  analysisEvents(analysisId: string, workspaceId: string): StreamEvent[] {
    const ids = eventIds(analysisId);
    const own = this.own(analysisId, workspaceId);
    const status = (s: string, progress: number): Item => ({ event: "status", data: { analysis_id: analysisId, status: s, progress } });
    const body = mediaOrder(this.t.segments, this.t.signals, this.t.alerts).map((e) => ({ event: e.event, data: own(e.data) }));
    const out: Item[] = [status("queued", 0), status("processing", PROCESSING_START_PROGRESS), ...withProgress(body, (p) => status("processing", p)), status("completed", 100)];
    out.push({ event: "completed", data: { ...own(this.t.analysis), id: analysisId, status: "completed", progress: 100 } });
    return out.map((e, i) => ({ ...e, id: ids(i) }));
  }

  /** The script of a live `/v1/stream` session; ids increase in sending order. */
  liveSession(analysisId: string, workspaceId: string, opts: LiveOptions): LiveScript {
    const all = this.analysisEvents(analysisId, workspaceId);
    const ids = eventIds(analysisId);
    let n = 0;
    const send = (item: Item): StreamEvent => ({ ...item, id: ids(n++) });
    const status = (s: string, progress: number) => send({ event: "status", data: { analysis_id: analysisId, status: s, progress } });
    const results: Item[] = [];
    for (const e of all) {
      if (e.event === "status" || e.event === "completed") continue;
      if (e.event === "transcript.segment") results.push({ event: "transcript.partial", data: partialOf(e.data) });
      results.push({ event: e.event, data: e.data });
    }
    const completed = all.at(-1)!.data;
    const lastEnd = Math.max(0, ...this.t.segments.map((s) => Number(s.end) || 0));
    return {
      analysisId,
      started: () => send({ event: "session.started", data: { analysis_id: analysisId } }),
      opening: () => [status("processing", 0)],
      results,
      send,
      finish: () => [
        status("completed", 100),
        send({
          event: "completed",
          data: { ...completed, media_type: opts.mediaType, source: { type: "stream", url: null, filename: null, content_type: opts.contentType, size_bytes: null }, duration_seconds: lastEnd },
        }),
      ],
      cancel: () => [status("canceled", 0)],
      error: (detail) => [send({ event: "error", data: { detail } })],
    };
  }
}

/** Increasing event ids of one analysis: `evt_` + its stem + a sequence number. */
function eventIds(analysisId: string): (i: number) => string {
  const stem = eventStem(analysisId);
  return (i) => `evt_${stem}${String(i + 1).padStart(4, "0")}`;
}

/**
 * `anl_01HZX4A9…` → the stem of its event ids, unique per resource: the whole id after its prefix, so two analyses
 * never share an event id; an id too long to fit (event ids have at most 40 characters, 4 of them the sequence)
 * keeps its first 28 and a hash of the whole.
 */
export function eventStem(resourceId: string): string {
  const rest = resourceId.replace(/^[a-z]+_/, "").replace(/[^0-9A-Za-z]/g, "").padEnd(8, "0");
  if (rest.length <= 36) return rest;
  let h = 0x811c9dc5; // FNV-1a, enough to tell long ids apart
  for (let i = 0; i < rest.length; i++) h = Math.imul(h ^ rest.charCodeAt(i), 0x01000193);
  return rest.slice(0, 28) + (h >>> 0).toString(36).padStart(8, "0");
}

/** The events after `lastEventId` (all of them when it is absent or unknown). */
export function resumeAfter(events: StreamEvent[], lastEventId: string | null | undefined): StreamEvent[] {
  if (!lastEventId) return events;
  const i = events.findIndex((e) => e.id === lastEventId);
  return i < 0 ? events : events.slice(i + 1);
}

/** Sends events one by one, `intervalMs` apart, until done or aborted. Resolves false when aborted. */
export async function play<T>(events: T[], intervalMs: number, send: (e: T) => void, signal: AbortSignal): Promise<boolean> {
  for (const e of events) {
    if (signal.aborted) return false;
    try {
      await sleep(intervalMs, signal);
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
