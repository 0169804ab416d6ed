// The one resource with an event stream (`/v1/analysis/{id}/stream`, `/ws/analyses/{analysis_id}`): its event
// log and its content. A hand-written part, because what an analysis produces while it processes (transcript
// segments, speakers, signals, alerts) and how its stream reports it are designed for it alone; the rest comes
// from the contract:
//   - the event vocabulary is the stream's schema (`AnalysisStreamEvent`): `status` carries the properties its
//     data schema lists, `completed` the resource, `error` a `detail`; content events name the schema of their data;
//   - the content is the contract's examples (events.ts) under fresh ids, stored as it is released: a `signal`
//     or `alert` event's data becomes a record of the sub-collection of that schema, a `transcript.segment` joins
//     the transcript (the child whose array holds that schema), and a speaker appears with its first segment;
//   - it is released while the analysis waits for a processing step that ends it without an error (its
//     `processing`, going `completed`), spread over that wait, with progress reports; with the `fail` scenario
//     nothing is released;
//   - a step into a state writes a `status` event; then, at the end, `completed` after the state processing
//     ends in by default, `error` (the resource's `error.message`) after a state that sets an `error`, and the log
//     is finished. A seeded analysis's log is written the first time it is needed, as its processing would have
//     written it.
import type { Random, RandomStreams } from "../util/ids.js";
import { isTerminal, type Machine, type Step } from "../../../contract/lifecycle.js";
import type { Contract, Json } from "../contract/contract-build.js";
import { mediaContent, seededText, transcriptContent, type ContentRequest, type MediaContent } from "../content/content.js";
import { freshIds, mediaOrder, newId, PROCESSING_START_PROGRESS, withProgress, type Item, type Templates } from "../events/events.js";
import { applies, completionOf, detectLanguage, promises, sentences, summaryOf } from "./completion.js";
import type { ResourceHooks } from "./driver.js";
import { EventLog } from "./log.js";
import { refName, type ChildModel, type CollectionModel, type StoreModel } from "./model.js";
import type { Rec, WorkspaceData } from "./records.js";

export interface ContentSink {
  /** Adds a record of a sub-collection (starting its lifecycle, if it has one). */
  insert(ws: WorkspaceData, coll: CollectionModel, parent: string, value: Json): Rec;
  now(): number;
  /** A new event log for the resource `key` of `ws` (tapped, in a sandbox's replicas, to publish its events). */
  newLog(ws: WorkspaceData, key: string): EventLog;
  /** The random part of the ids it mints, per workspace (StoreOptions.random). */
  random?: RandomStreams;
}

type Target = { kind: "records"; coll: CollectionModel } | { kind: "child"; child: ChildModel; property: string };

export class AnalysisHooks implements ResourceHooks {
  private readonly m: Machine;
  /** Properties of the `status` event's data. */
  private readonly statusFields: string[];
  private readonly targets = new Map<string, Target>();
  private readonly speakers: CollectionModel | undefined;
  private readonly transcript: ChildModel | undefined;
  /** Content event → the operation that shows its content (`signal` → `listAnalysisSignals`). */
  private readonly opOf = new Map<string, string>();
  private readonly speakersOp: string | undefined;
  /** The state processing ends in by default (`completed`): its `x-completion` says what content there is. */
  private readonly done: string | undefined;
  private readonly media = new WeakMap<Rec, MediaContent>();

  constructor(
    private readonly model: StoreModel,
    private readonly coll: CollectionModel,
    /** The stream's event schema (a oneOf of `{event, id, data}` variants). */
    eventSchema: Json,
    private readonly templates: Templates,
    private readonly sink: ContentSink,
  ) {
    const { contract } = model;
    this.m = coll.machine!;
    const variants = new Map<string, Json>(); // event name → its data schema, as written (a $ref where it names one)
    for (const v of contract.deref(eventSchema)?.oneOf ?? []) {
      const s = contract.deref(v);
      variants.set(s?.properties?.event?.const, s?.properties?.data);
    }
    this.statusFields = Object.keys(contract.deref(variants.get("status"))?.properties ?? {});
    const subs = [...model.collections.values()].filter((c) => c.parent?.schema === coll.schema);
    this.transcript = model.children.find((c) => c.parent === coll.schema);
    for (const [event, data] of variants) {
      const target = this.targetOf(contract, refName(data), subs);
      if (target) this.targets.set(event, target);
    }
    this.speakers = AnalysisHooks.speakersOf(model, subs, [...this.targets.values()]);
    const listOp = (c: CollectionModel) => [...model.plans].find(([, p]) => p.kind === "list" && p.coll === c)?.[0].operationId;
    for (const [event, t] of this.targets) {
      const op = t.kind === "records" ? listOp(t.coll) : t.child.route.operationId;
      if (op) this.opOf.set(event, op);
    }
    this.speakersOp = this.speakers ? listOp(this.speakers) : undefined;
    this.done = this.m.transitions.find((t) => t.trigger === "async" && t.scenario === undefined && isTerminal(this.m, t.to) && this.m.set[t.to]?.error === undefined)?.to;
  }

  /**
   * The sub-collection the processing fills with speakers: one no content event fills and no client creates (a
   * speaker appears with its first segment). Not merely the first one no event fills: a sub-resource an author
   * adds under the analysis (comments, with a create) would take its place when its paths come first.
   */
  private static speakersOf(model: StoreModel, subs: CollectionModel[], targets: Target[]): CollectionModel | undefined {
    const created = new Set([...model.plans.values()].filter((p) => p.kind === "create").map((p) => (p as { coll: CollectionModel }).coll));
    const found = subs.filter((c) => !created.has(c) && !targets.some((t) => t.kind === "records" && t.coll === c));
    if (found.length > 1) throw new Error(`${found.map((c) => c.collectionPath).join(", ")}: more than one sub-collection of ${subs[0]!.parent!.schema} is filled by no content event and created by no operation; the mock cannot tell which holds the speakers`);
    return found[0];
  }

  /** Does `rec`, once done, have the content of `operation` (`x-completion`)? Everything, without the extension. */
  private promised(rec: Rec, operation: string | undefined): boolean {
    if (!this.done || !operation || !completionOf(this.model, this.coll.schema, this.done).length) return true;
    return promises(this.model, this.coll.schema, this.done, operation, rec.value);
  }

  private targetOf(contract: Contract, schema: string | null, subs: CollectionModel[]): Target | undefined {
    if (!schema) return undefined;
    const coll = subs.find((c) => c.schema === schema);
    if (coll) return { kind: "records", coll };
    const child = this.transcript;
    const props = child ? contract.deref(contract.doc.components.schemas[child.schema])?.properties ?? {} : {};
    const property = Object.keys(props).find((k) => refName(contract.deref(props[k])?.items) === schema);
    return child && property ? { kind: "child", child, property } : undefined;
  }

  /** The analysis's log, written from its history the first time it is needed. */
  logOf(ws: WorkspaceData, rec: Rec): EventLog {
    return (rec.log ??= this.history(ws, rec, rec.value[this.m.property], true));
  }

  afterStep(ws: WorkspaceData, rec: Rec, step: Step): void {
    rec.log ??= step.from === null ? this.sink.newLog(ws, rec.key) : this.history(ws, rec, step.from, false);
    if (this.isContentWait(step.to)) rec.value.progress = Math.max(rec.value.progress ?? 0, PROCESSING_START_PROGRESS);
    if (isTerminal(this.m, step.to) && step.trigger === "async" && this.m.set[step.to]?.error === undefined) this.complete(ws, rec);
    rec.changed();
    rec.log.append("status", this.status(rec, step.to, rec.value.progress));
    this.ending(rec, step.to, step.trigger === "async");
  }

  meanwhile(ws: WorkspaceData, rec: Rec, next: Step): Array<{ at: number; run: () => void }> {
    if (!isTerminal(this.m, next.to) || this.m.set[next.to]?.error !== undefined) return [];
    const items = this.freshContent(rec);
    return items.map((item, i) => ({ at: (i + 1) / (items.length + 1), run: () => this.release(ws, rec, item) }));
  }

  /** Is `state` the wait before processing ends (content flows then)? */
  private isContentWait(state: string): boolean {
    return this.m.transitions.some((t) => t.trigger === "async" && t.scenario === undefined && t.from.includes(state) && isTerminal(this.m, t.to));
  }

  private status(rec: Rec, state: string, progress: number): Json {
    const data: Json = {};
    for (const f of this.statusFields) data[f] = f === this.m.property ? state : f === "progress" ? progress : (rec.value[f] ?? rec.key);
    return data;
  }

  /** After a terminal status: `completed` or `error`, then the end of the log. */
  private ending(rec: Rec, state: string, byProcessing: boolean): void {
    if (!isTerminal(this.m, state)) return;
    if (this.m.set[state]?.error !== undefined) rec.log!.append("error", { detail: String(rec.value.error?.message ?? `The ${this.coll.schema.toLowerCase()} ended ${state}.`) });
    else if (byProcessing) rec.log!.append("completed", structuredClone(rec.value));
    rec.log!.finish();
  }

  /**
   * The content of a new analysis, in release order with progress reports: the sentences of its inline text (and
   * the example's signals quoting them), else the examples' content; under fresh ids; only what its features
   * promise (`x-completion`).
   */
  freshContent(rec: Rec): Item[] {
    const t = this.templates;
    const text = rec.input?.text;
    const lines = text === undefined ? [] : sentences(text);
    const media = text === undefined ? this.mediaOf(rec) : undefined;
    const random = this.sink.random?.of(String(rec.value.workspace_id));
    const segments = media ? media.segments : lines.map((line, i) => this.textSegment(line, i, random));
    const signals = media ? media.signals : t.signals.map((sig, i) => ({ ...sig, start: null, end: null, speaker_label: null, evidence: lines.length ? lines[i % lines.length]!.slice(0, 2000) : null }));
    const keep = (event: string, items: Json[]) => (this.promised(rec, this.opOf.get(event)) ? items : []);
    const own = (v: Json) => ({ ...v, ...(v.analysis_id !== undefined ? { analysis_id: rec.key } : {}) });
    const all = [...keep("transcript.segment", segments), ...keep("signal", signals), ...keep("alert", media ? media.alerts : t.alerts)];
    const fresh = freshIds(all, this.sink.now(), random).map(own);
    const ofKind = (n: number, skip: number) => fresh.slice(skip, skip + n);
    const nSeg = keep("transcript.segment", segments).length;
    const nSig = keep("signal", signals).length;
    const from = Math.max(rec.value.progress ?? 0, PROCESSING_START_PROGRESS); // on from where it stands (issue 31)
    return withProgress(mediaOrder(ofKind(nSeg, 0), ofKind(nSig, nSeg), fresh.slice(nSeg + nSig)), (p) => ({ event: "status", data: { progress: p } }), from);
  }

  /**
   * A fixture's record, as loaded: a `text` analysis reads its text (`metadata.text`, else sentences from its seed;
   * decision RM24); one resting in the state processing ends in gets the content it lacks, derived as processing
   * would have made it (content.ts, seeded by its id or `metadata.seed`; RM16), around the fixture's own transcript
   * when it has one (RM22): its transcript answers 200 and its speakers, signals and alerts agree with it. The
   * record's own values win over derived ones, and content the fixture gives is kept as written; its log is
   * written from it when first read.
   */
  deriveResting(ws: WorkspaceData, rec: Rec): void {
    if (!this.transcript) return;
    if (rec.value.media_type === "text") rec.input ??= { text: typeof rec.value.metadata?.text === "string" ? rec.value.metadata.text : seededText(this.request(rec).seed) };
    const doc = ws.child(this.transcript.schema).get(rec.key);
    if (rec.value[this.m.property] !== this.done) return;
    if (doc && rec.input) rec.input = { text: doc.text };
    else if (doc) this.media.set(rec, transcriptContent(this.templates, this.request(rec), doc));
    const given = (event: string) => {
      const t = this.targets.get(event);
      return t?.kind === "records" && ws.table(t.coll).ordered(rec.key).length > 0;
    };
    const signalsGiven = given("signal") || given("alert");
    rec.log = new EventLog(rec.key); // scratch: release() logs each item; the real log is its history, made on first use
    for (const item of this.freshContent(rec)) {
      if (item.event === "status" || (doc && item.event === "transcript.segment") || (signalsGiven && (item.event === "signal" || item.event === "alert"))) continue;
      this.release(ws, rec, item);
    }
    if (doc && !rec.input && this.speakers && this.promised(rec, this.speakersOp) && !ws.table(this.speakers).ordered(rec.key).length) {
      for (const s of this.mediaOf(rec).speakers) this.sink.insert(ws, this.speakers, rec.key, structuredClone(s));
    }
    const own = Object.entries(rec.value).filter(([, v]) => v !== null && v !== undefined);
    const text = doc?.text;
    this.complete(ws, rec);
    if (doc) doc.text = text;
    for (const [k, v] of own) rec.value[k] = v;
    rec.log = null;
  }

  /** What a media analysis's content is derived from. */
  private request(rec: Rec): ContentRequest {
    const seed = typeof rec.value.metadata?.seed === "string" ? rec.value.metadata.seed : rec.key;
    return { seed, analysisId: rec.key, title: rec.value.title ?? null, features: rec.value.features ?? [], duration: rec.value.duration_seconds ?? null };
  }

  /** The content a media analysis is made of, derived from its id (content.ts); the same on every call. */
  private mediaOf(rec: Rec): MediaContent {
    let c = this.media.get(rec);
    if (!c) this.media.set(rec, (c = mediaContent(this.templates, this.request(rec))));
    return c;
  }

  /** One sentence of a text analysis as a transcript segment: no timeline, no speaker, confidence 1. */
  private textSegment(line: string, i: number, random: Random | undefined): Json {
    return { id: newId("seg", this.sink.now() + i, random), start: null, end: null, speaker_label: null, speaker_id: null, text: line, confidence: 1, words: [] };
  }

  /** Stores one content item and logs its event (a progress report updates `progress`). */
  release(ws: WorkspaceData, rec: Rec, item: Item): void {
    // A content item whose turn comes after the record's log has ended (a late step on PostgreSQL replicas runs as of
    // its due time, SB24, and a backup turn may run what was already run) is dropped: nothing follows the last event,
    // and throwing here ended the replica's process.
    if (this.logOf(ws, rec).finished) return;
    if (item.event === "status") {
      rec.value.progress = item.data.progress;
      rec.changed();
      this.logOf(ws, rec).append("status", this.status(rec, rec.value[this.m.property], item.data.progress));
      return;
    }
    const target = this.targets.get(item.event);
    let data = item.data;
    if (target?.kind === "records") {
      const value = { ...data };
      if (target.coll.time) value[target.coll.time] = new Date(this.sink.now()).toISOString();
      data = this.sink.insert(ws, target.coll, rec.key, value).value;
    } else if (target?.kind === "child") {
      const doc = this.transcriptOf(ws, rec);
      doc[target.property].push(data);
      if (this.speakers && this.promised(rec, this.speakersOp)) this.speakerFor(ws, rec, data.speaker_label);
    }
    this.logOf(ws, rec).append(item.event, structuredClone(data));
    rec.kept();
  }

  /** The transcript of `rec` (made from the example, emptied, on its first segment). */
  private transcriptOf(ws: WorkspaceData, rec: Rec): Json {
    const child = ws.child(this.transcript!.schema);
    let doc = child.get(rec.key);
    if (!doc) {
      doc = { ...structuredClone(this.templates.transcript), segments: [], text: "" };
      if (this.transcript!.property) doc[this.transcript!.property] = rec.key;
      if (typeof rec.value.language === "string" && rec.value.language !== "auto") doc.language = rec.value.language;
      if (rec.input?.text !== undefined) Object.assign(doc, { duration_seconds: null, language: rec.value.language === "auto" ? detectLanguage(rec.input.text) : doc.language });
      if (rec.input?.text === undefined) Object.assign(doc, { duration_seconds: this.mediaOf(rec).duration, speakers: this.mediaOf(rec).transcriptSpeakers });
      if (rec.input?.text !== undefined || !this.promised(rec, this.speakersOp)) doc.speakers = [];
      child.set(rec.key, doc);
    }
    return doc;
  }

  /** A speaker of the example appears with the first segment spoken under its label. */
  private speakerFor(ws: WorkspaceData, rec: Rec, label: unknown): void {
    const coll = this.speakers!;
    if (typeof label !== "string" || ws.table(coll).get(rec.key, label)) return;
    const template = this.mediaOf(rec).speakers.find((s) => s[coll.key] === label);
    if (template) this.sink.insert(ws, coll, rec.key, structuredClone(template));
  }

  /**
   * On completion the transcript's text is its segments' (an analysis that produced none still has one), and the
   * properties its `x-completion` names are filled from its content.
   */
  private complete(ws: WorkspaceData, rec: Rec): void {
    if (!this.transcript) return;
    const doc = this.transcriptOf(ws, rec);
    doc.text = doc.segments.map((s: Json) => s.text).join("\n");
    for (const e of completionOf(this.model, this.coll.schema, rec.value[this.m.property])) {
      if (!e.property || !applies(e, rec.value)) continue;
      const v = this.fill(e.by, rec, doc);
      if (v !== undefined) rec.value[e.property] = v;
    }
  }

  private fill(by: string, rec: Rec, doc: Json): unknown {
    const text = rec.input?.text ?? doc.text;
    switch (by) {
      case "summary":
        return rec.input?.text === undefined ? this.mediaOf(rec).summary : (summaryOf(text) ?? undefined);
      case "detected-language":
        return rec.input?.text !== undefined ? detectLanguage(rec.input.text) : (doc.language ?? undefined);
      case "media-duration":
        return typeof doc.duration_seconds === "number" ? doc.duration_seconds : undefined;
      default:
        return undefined;
    }
  }

  /** The log a resource's processing would have written to reach `state`. */
  private history(ws: WorkspaceData, rec: Rec, state: string, current: boolean): EventLog {
    const log = this.sink.newLog(ws, rec.key);
    // What the stored records say happened is durable already: told at once (log.ts `rebuilt`).
    log.rebuilt(() => {
      const path = pathTo(this.m, state);
      for (const s of path) {
        const progress = s === state && current ? rec.value.progress : (this.m.set[s]?.progress ?? (s === this.m.initial ? 0 : PROCESSING_START_PROGRESS));
        log.append("status", this.status(rec, s, progress));
        if (this.isContentWait(s) && s !== state) for (const item of this.storedContent(ws, rec)) log.append(item.event, item.event === "status" ? this.status(rec, s, item.data.progress) : item.data);
      }
      rec.log = log;
      if (current) this.ending(rec, state, this.m.transitions.some((t) => t.trigger === "async" && t.scenario === undefined && t.to === state));
    });
    return log;
  }

  /** A seeded analysis's content as stored: its transcript's segments, its signals and alerts, in media order. */
  private storedContent(ws: WorkspaceData, rec: Rec): Item[] {
    const records = (event: string) => {
      const t = this.targets.get(event);
      return t?.kind === "records" ? ws.table(t.coll).ordered(rec.key).map((r) => r.value) : [];
    };
    const seg = this.targets.get("transcript.segment");
    const segments = seg?.kind === "child" ? (ws.child(seg.child.schema).get(rec.key)?.[seg.property] ?? []) : [];
    const body = mediaOrder(segments, records("signal"), records("alert"));
    return withProgress(body, (p) => ({ event: "status", data: { progress: p } }));
  }
}

/**
 * The states a resource passed through to reach `state`, from its initial one: the shortest path over the
 * service's processing steps, else over any transition.
 */
export function pathTo(m: Machine, state: string): string[] {
  for (const allowed of [(t: Machine["transitions"][number]) => t.trigger === "async", () => true]) {
    const prev = new Map<string, string | null>([[m.initial, null]]);
    const queue = [m.initial];
    while (queue.length) {
      const s = queue.shift()!;
      if (s === state) {
        const path: string[] = [];
        for (let x: string | null = s; x !== null; x = prev.get(x)!) path.unshift(x);
        return path;
      }
      for (const t of m.transitions) {
        if (!allowed(t) || !t.from.includes(s) || prev.has(t.to)) continue;
        prev.set(t.to, s);
        queue.push(t.to);
      }
    }
  }
  return [state];
}
