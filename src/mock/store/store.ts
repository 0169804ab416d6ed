// The stateful mock: one store per workspace, in memory, seeded lazily from the contract's examples the first
// time the workspace is used (seed.ts), holding every collection the contract describes (model.ts). Operations
// (ops.ts) read and write it; lifecycles move it (driver.ts); an analysis keeps an event log its streams show
// (analysis.ts). Implements MockState: reset, snapshot and restore.
import type { Contract, Json, Route } from "../contract.js";
import { readTemplates, type Templates } from "../events.js";
import type { Clock } from "../limiter.js";
import type { MockState } from "../state.js";
import { AnalysisHooks } from "./analysis.js";
import { buildRecord } from "./build.js";
import { COMPLETION_KEY, CompletionHooks } from "./completion.js";
import { Driver, type WebhookSink } from "./driver.js";
import { readListSpec, type ListSpec } from "./lists.js";
import { EventLog } from "./log.js";
import { readModel, type CollectionModel, type StoreModel } from "./model.js";
import { Rec, WorkspaceData } from "./records.js";
import type { Scheduler } from "./scheduler.js";
import { readSeed, SeedFactory } from "./seed.js";

export interface StoreOptions {
  contract: Contract;
  clock: Clock;
  scheduler: Scheduler;
  /** Time between two processing steps of a lifecycle, ms. */
  stepMs: number;
  webhooks: WebhookSink;
  /** Workspaces kept at most; the least recently used one is forgotten beyond (a token may name any workspace). */
  maxWorkspaces?: number;
  /** Told after the store changed by itself (a processing step, a time-out): the state file is written then. */
  onChange?: () => void;
}

export interface InsertOptions {
  /** The lifecycle scenario it takes. */
  scenario?: string | undefined;
  /** The state it is created in, when the request chose one. */
  requested?: string | undefined;
  /** Moved by a live session, not by the service's processing. */
  held?: boolean;
  /** Its event log, when ids had to be given out before it was created. */
  log?: EventLog;
  /** What it was created from that it does not show (Rec.input). */
  input?: { text?: string };
}

/** An error answer of the store: a status the operation documents, and its `detail`. */
export class StoreError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/** `WorkspaceMember` → `workspace member`, for messages. */
export function nameOf(schema: string): string {
  return schema.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

export class Store implements MockState {
  readonly name = "store";
  readonly model: StoreModel;
  readonly driver: Driver;
  readonly listSpecs = new Map<Route, ListSpec>();
  /** The collection whose resources have an event stream, and its hooks. */
  readonly streamed: { coll: CollectionModel; hooks: AnalysisHooks; route: Route } | null = null;
  readonly templates: Templates;
  private seeds: SeedFactory | null = null;
  private readonly workspaces = new Map<string, WorkspaceData>();
  private lastUsed: string | null = null;
  /** A create operation's own example, its records' value of last resort; for `creates`, the collection's first seed. */
  private readonly createExamples = new Map<Route, Json>();

  constructor(readonly o: StoreOptions) {
    this.model = readModel(o.contract);
    this.templates = readTemplates(o.contract);
    // Whatever runs on a timer changes the store by itself: say so after each task.
    const scheduler: Scheduler = { after: (ms, task) => o.scheduler.after(ms, () => (task(), o.onChange?.())) };
    this.driver = new Driver({ model: this.model, scheduler, clock: o.clock, stepMs: o.stepMs, webhooks: o.webhooks, create: (ws, schema, fields) => this.createLinked(ws, schema, fields) });
    for (const [route, plan] of this.model.plans) {
      if (plan.kind === "list") this.listSpecs.set(route, readListSpec(o.contract, route, plan.coll));
    }
    const sse = o.contract.router.routes.find((r) => r.op.responses?.[String(r.successCode)]?.content?.["text/event-stream"]);
    const param = sse?.parameters.find((p) => p.in === "path");
    const pattern = o.contract.deref(param?.schema)?.pattern;
    const coll = [...this.model.collections.values()].find((c) => c.machine && c.keyPattern === pattern);
    if (sse && coll) {
      const eventSchema = o.contract.deref(sse.op.responses[String(sse.successCode)]).content["text/event-stream"].schema;
      const hooks = new AnalysisHooks(this.model, coll, eventSchema, this.templates, { insert: (ws, c, parent, value) => this.insert(ws, c, parent, value), now: () => o.clock.now() });
      this.driver.hooks.set(coll.schema, hooks);
      this.streamed = { coll, hooks, route: sse };
    }
    const completion = new CompletionHooks({
      model: this.model,
      now: () => o.clock.now(),
      baseUrl: () => this.baseUrl,
      example: (schema) => this.seedFactory.seed.records.find((r) => r.coll === schema)?.value,
      lookup: (ws, schema, id) => {
        const c = this.model.collections.get(schema);
        return c ? ws.table(c).get(null, id)?.value : undefined;
      },
    });
    for (const c of this.model.collections.values()) {
      if (c.machine && !this.driver.hooks.has(c.schema) && o.contract.doc.components.schemas[c.schema]?.[COMPLETION_KEY]) this.driver.hooks.set(c.schema, completion);
    }
  }

  /** The mock's base URL, for links to its own files (set once it listens). */
  baseUrl = "http://127.0.0.1:4010";

  now(): number {
    return this.o.clock.now();
  }

  /** The seed, read from the contract on first use (not at start-up: cold start matters). */
  private get seedFactory(): SeedFactory {
    return (this.seeds ??= new SeedFactory(readSeed(this.model)));
  }

  /** The workspace's data, seeded on its first use. */
  workspace(id: string): WorkspaceData {
    let ws = this.workspaces.get(id);
    if (ws) {
      if (id !== this.lastUsed && this.workspaces.size > 1) {
        this.workspaces.delete(id);
        this.workspaces.set(id, ws); // most recently used last
      }
      this.lastUsed = id;
      return ws;
    }
    ws = this.seeded(id);
    this.workspaces.set(id, ws);
    if (this.workspaces.size > (this.o.maxWorkspaces ?? 1000)) this.forget(this.workspaces.keys().next().value!);
    return ws;
  }

  private seeded(id: string): WorkspaceData {
    const ws = new WorkspaceData(id);
    const seed = this.seedFactory.for(id);
    for (const r of seed.records) ws.table(this.model.collections.get(r.coll)!).add(new Rec(this.model.collections.get(r.coll)!, r.parent, ws.seq++, r.value));
    for (const c of seed.children) ws.child(c.schema).set(c.parent, c.value);
    for (const [path, v] of Object.entries(seed.singletons)) ws.singletons.set(path, v);
    this.moveSeeded(ws);
    return ws;
  }

  /**
   * Seeded resources whose state the service's processing leaves (a `processing` analysis, a `queued` run) move
   * on as created ones do (decision RM6); the others (an alert a person acknowledges) rest until moved.
   */
  private moveSeeded(ws: WorkspaceData): void {
    for (const t of ws.tables.values()) {
      for (const r of t.all()) {
        const m = r.coll.machine;
        if (!m || !m.transitions.some((x) => x.trigger === "async" && x.scenario === undefined && x.from.includes(r.value[m.property]))) continue;
        r.driven = true;
        this.driver.arm(ws, r);
      }
    }
  }

  private forget(id: string): void {
    const ws = this.workspaces.get(id);
    if (!ws) return;
    for (const t of ws.tables.values()) for (const r of t.all()) r.cancelTimers();
    this.workspaces.delete(id);
    if (this.lastUsed === id) this.lastUsed = null;
  }

  /** The first example of a route's success response, if it has one. */
  routeExample(route: Route): Json {
    if (!this.createExamples.has(route)) {
      const media = this.o.contract.deref(route.op.responses?.[String(route.successCode)])?.content?.["application/json"];
      this.createExamples.set(route, media ? this.o.contract.deref(Object.values<Json>(media.examples ?? {})[0])?.value : undefined);
    }
    return this.createExamples.get(route);
  }

  /** The example a new record of `route` falls back on; without a route (`creates`), the collection's first seed. */
  template(route: Route | null, coll: CollectionModel): Json {
    return (route && this.routeExample(route)) ?? this.seedFactory.seed.records.find((r) => r.coll === coll.schema)?.value ?? {};
  }

  /** Adds a complete record (content of an analysis, a seeded-like value) and starts its lifecycle, if it has one. */
  insert(ws: WorkspaceData, coll: CollectionModel, parent: string | null, value: Json, opts: InsertOptions = {}): Rec {
    const rec = new Rec(coll, parent, ws.seq++, value);
    ws.table(coll).add(rec);
    rec.scenario = opts.scenario;
    rec.held = opts.held ?? false;
    if (opts.log) rec.log = opts.log;
    if (opts.input) rec.input = opts.input;
    if (coll.machine) this.driver.start(ws, rec, opts.requested);
    return rec;
  }

  /** A record created by a lifecycle (`creates`): built from the collection's example, with the linking fields. */
  private createLinked(ws: WorkspaceData, schema: string, fields: Json): Rec {
    const coll = this.model.collections.get(schema)!;
    const value = buildRecord(this.o.contract, null, coll, fields, { workspaceId: ws.id, parent: null, now: this.now(), template: this.template(null, coll) });
    return this.insert(ws, coll, null, value);
  }

  /** The record an item path names, its parents checked first; 404 when any is not in this workspace. */
  find(ws: WorkspaceData, coll: CollectionModel, params: Record<string, string>): Rec {
    const parent = coll.parent ? this.find(ws, this.model.collections.get(coll.parent.schema)!, params).key : null;
    const key = coll.keyParam ? params[coll.keyParam] : undefined;
    const rec = key === undefined ? undefined : ws.table(coll).get(parent, key);
    if (!rec) throw new StoreError(404, `No ${nameOf(coll.schema)} ${key ?? ""} in this workspace.`.replace("  ", " "));
    return rec;
  }

  /** The event log of a streamed resource (an analysis), or undefined when the workspace has no such resource. */
  eventLog(workspaceId: string, id: string): EventLog | undefined {
    if (!this.streamed) return undefined;
    const ws = this.workspace(workspaceId);
    const rec = ws.table(this.streamed.coll).get(null, id);
    return rec ? this.streamed.hooks.logOf(ws, rec) : undefined;
  }

  /**
   * A move made outside the API (a person acknowledging an alert in the dashboard), for the mock's own control
   * routes: the record `id`, of a collection whose lifecycle has `external` moves, enters `to`. Answers the
   * record as it is then, or why it cannot.
   */
  moveExternally(workspaceId: string, id: string, to: string): { value: Json } | { problem: string } {
    const ws = this.workspace(workspaceId);
    for (const coll of this.model.collections.values()) {
      if (!coll.machine?.transitions.some((t) => t.trigger === "external")) continue;
      for (const rec of ws.table(coll).all()) {
        if (rec.key !== id) continue;
        if (!this.driver.external(ws, rec, to)) return { problem: `The ${nameOf(coll.schema)} ${id} is ${rec.value[coll.machine.property]}: it cannot move to ${to} from outside the API.` };
        return { value: rec.value };
      }
    }
    return { problem: `No resource ${id} that moves from outside the API in this workspace.` };
  }

  /** The `detail` of a 404 for a streamed resource `id` that is not in the workspace. */
  missingStream(id: string): string {
    return `No ${nameOf(this.streamed?.coll.schema ?? "resource")} ${id} in this workspace.`;
  }

  // --- MockState -------------------------------------------------------------------------------------------

  reset(): void {
    for (const id of [...this.workspaces.keys()]) this.forget(id);
  }

  snapshot(): unknown {
    const workspaces: Record<string, Json> = {};
    for (const [id, ws] of this.workspaces) {
      const records: Json[] = [];
      for (const t of ws.tables.values()) {
        for (const r of t.all()) {
          records.push({ coll: r.coll.schema, parent: r.parent, seq: r.seq, value: r.value, scenario: r.scenario ?? null, driven: r.driven, log: r.log?.snapshot() ?? null });
        }
      }
      records.sort((a, b) => a.seq - b.seq);
      const children = Object.fromEntries([...ws.children].map(([schema, m]) => [schema, Object.fromEntries(m)]));
      workspaces[id] = { seq: ws.seq, records, children, singletons: Object.fromEntries(ws.singletons) };
    }
    return { version: 1, workspaces };
  }

  restore(data: unknown): void {
    const d = data as Json;
    if (!d || typeof d !== "object" || d.version !== 1 || typeof d.workspaces !== "object" || d.workspaces === null) {
      throw new Error('store: not a snapshot of the store (expected {"version": 1, "workspaces": {…}})');
    }
    const restored = new Map<string, WorkspaceData>();
    for (const [id, w] of Object.entries<Json>(d.workspaces)) restored.set(id, this.restoreWorkspace(id, w));
    this.reset();
    for (const [id, ws] of restored) {
      this.workspaces.set(id, ws);
      for (const t of ws.tables.values()) for (const r of t.all()) if (r.coll.machine) this.driver.arm(ws, r);
    }
  }

  private restoreWorkspace(id: string, w: Json): WorkspaceData {
    const where = (i: number, what: string) => `store: workspaces.${id}.records[${i}]: ${what}`;
    if (!Array.isArray(w?.records) || typeof w.seq !== "number") throw new Error(`store: workspaces.${id} needs "seq" and "records"`);
    const ws = new WorkspaceData(id);
    ws.seq = w.seq;
    w.records.forEach((r: Json, i: number) => {
      const coll = this.model.collections.get(r?.coll);
      if (!coll) throw new Error(where(i, `"${r?.coll}" is not a collection of the contract`));
      if (!r.value || typeof r.value !== "object" || typeof r.value[coll.key] !== "string") throw new Error(where(i, `value needs a string "${coll.key}"`));
      const rec = new Rec(coll, r.parent ?? null, Number(r.seq), r.value);
      rec.scenario = r.scenario ?? undefined;
      rec.driven = r.driven === true;
      if (r.log) rec.log = EventLog.restore(rec.key, r.log);
      ws.table(coll).add(rec);
    });
    for (const [schema, m] of Object.entries<Json>(w.children ?? {})) for (const [parent, v] of Object.entries(m)) ws.child(schema).set(parent, v);
    for (const [path, v] of Object.entries(w.singletons ?? {})) ws.singletons.set(path, v);
    return ws;
  }
}
