// The stateful mock: one store per workspace, in memory, seeded lazily from the contract's examples the first
// time the workspace is used (seed.ts), holding every collection the contract describes (model.ts). Operations
// (ops.ts) read and write it; lifecycles move it (driver.ts); an analysis keeps an event log its streams show
// (analysis.ts). Implements MockState: reset, snapshot and restore.
import type { RandomStreams } from "../util/ids.js";
import { FileLinks } from "../content/file-links.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";
import { readTemplates, type Templates } from "../events/events.js";
import type { Clock } from "../clock/clock.js";
import type { MockState } from "../state/state.js";
import { CapReached, DEFAULT_LIMITS, type Limits } from "../access/limits.js";
import { AnalysisHooks } from "./analysis.js";
import { buildRecord } from "./build.js";
import { COMPLETION_KEY, CompletionHooks } from "./completion.js";
import { Driver, type DriverOptions, type WebhookSink } from "./driver.js";
import { readListSpec, type ListSpec } from "./lists.js";
import { EventLog, type LogTap, type Publish } from "./log.js";
import { readModel, type CollectionModel, type StoreModel } from "./model.js";
import { IdempotencyRecords } from "./idempotency-records.js";
import { StorePersistence, type StoreChanges, type StoreRows } from "./persist.js";
import { Journal, Rec, WorkspaceData, type FixtureItem } from "./records.js";
import { readSeed, SeedFactory } from "./seed.js";

export interface StoreOptions {
  contract: Contract;
  /** The gateway's clock: what records are stamped with, and the timers of their lifecycles. */
  clock: Clock;
  /** Time between two processing steps of a lifecycle, ms. */
  stepMs: number;
  webhooks: WebhookSink;
  /**
   * Caps (limits.ts): workspaces remembered (a new one beyond answers 503; none is ever forgotten), records per
   * collection per workspace (403), pending lifecycle steps (503). Defaults: DEFAULT_LIMITS.
   */
  limits?: Pick<Limits, "workspaces" | "records" | "lifecycleTimers">;
  /** Told after the store changed by itself (a processing step, a time-out): the state file is written then. */
  onChange?: () => void;
  /** Workspaces whose records come from a fixtures file (fixtures.ts) instead of the seed. */
  fixtures?: ReadonlyMap<string, readonly FixtureItem[]>;
  /** The tap of every event log of a workspace (a sandbox's replicas publish each analysis's events: events-redis.ts). */
  tapFor?: (workspaceId: string) => LogTap;
  /** How an event log tells its followers once the change is durable (the state registry's `commitThen`; issue 47). */
  publish?: Publish;
  /** The outcome a resource's next processing step takes besides its own (a fault rule), among `scenarios`. */
  scenarioOf?: DriverOptions["scenarioOf"];
  /** Signs the links to the mock's own files (file-links.ts); a random key when not given. */
  links?: FileLinks;
  /** The random part of the ids it mints: a seed's stream per workspace; WebCrypto when not given. */
  random?: RandomStreams;
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
  /** Workspaces held in memory by requests and streams in flight (`hold`): id → how many hold it. */
  private readonly held = new Map<string, number>();
  /** Lifecycle steps scheduled and not yet run or cancelled (capped: `limits.lifecycleTimers`). */
  private pendingSteps = 0;
  private readonly limits: Pick<Limits, "workspaces" | "records" | "lifecycleTimers">;
  /** A create operation's own example, its records' value of last resort; for `creates`, the collection's first seed. */
  private readonly createExamples = new Map<Route, Json>();
  /** Kept in a database (`--state`): how rows are read and written, and what changed since the last write. */
  private kept: { persistence: StorePersistence; journal: Journal; touched: Set<WorkspaceData>; writing: Set<WorkspaceData>; cleared: boolean; flush: () => void } | null = null;

  /** Signs the links to the mock's own files. */
  readonly links: FileLinks;

  constructor(readonly o: StoreOptions) {
    this.random = o.random;
    this.links = o.links ?? new FileLinks(globalThis.crypto.randomUUID());
    this.model = readModel(o.contract);
    this.templates = readTemplates(o.contract);
    this.limits = o.limits ?? DEFAULT_LIMITS;
    // Whatever runs on a timer changes the store by itself: say so after each task. Pending steps are counted.
    const clock: Clock = {
      now: () => o.clock.now(),
      after: (ms, task) => {
        let pending = true;
        const settle = () => pending && ((pending = false), this.pendingSteps--);
        this.pendingSteps++;
        const cancel = o.clock.after(ms, () => (settle(), task(), o.onChange?.()));
        return () => (settle(), cancel());
      },
      // A step run late through a gate runs as of its due time (SB24).
      ...(o.clock.runAs ? { runAs: (at: number, task: () => void) => o.clock.runAs!(at, task) } : {}),
    };
    this.driver = new Driver({ model: this.model, clock, stepMs: o.stepMs, webhooks: o.webhooks, scenarioOf: o.scenarioOf, create: (ws, schema, fields) => this.createLinked(ws, schema, fields), gate: (ws, rec, run) => (this.stepGate ? this.stepGate(ws, rec, run) : run()) });
    for (const [route, plan] of this.model.plans) {
      if (plan.kind === "list") this.listSpecs.set(route, readListSpec(o.contract, route, plan.coll));
    }
    const sse = o.contract.router.routes.find((r) => r.op.responses?.[String(r.successCode)]?.content?.["text/event-stream"]);
    const param = sse?.parameters.find((p) => p.in === "path");
    const pattern = o.contract.deref(param?.schema)?.pattern;
    const coll = [...this.model.collections.values()].find((c) => c.machine && c.keyPattern === pattern);
    if (sse && coll) {
      const eventSchema = o.contract.deref(sse.op.responses[String(sse.successCode)]).content["text/event-stream"].schema;
      const hooks = new AnalysisHooks(this.model, coll, eventSchema, this.templates, { insert: (ws, c, parent, value) => this.insert(ws, c, parent, value), now: () => o.clock.now(), newLog: (ws, key) => this.newLog(ws, key), random: o.random });
      this.driver.hooks.set(coll.schema, hooks);
      this.streamed = { coll, hooks, route: sse };
    }
    const completion = new CompletionHooks({
      model: this.model,
      now: () => o.clock.now(),
      baseUrl: () => this.baseUrl,
      links: this.links,
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

  /** The random part of the ids it mints (StoreOptions.random). */
  readonly random: RandomStreams | undefined;

  now(): number {
    return this.o.clock.now();
  }

  /** The workspaces a fixtures file fills. */
  get fixtureWorkspaces(): string[] {
    return [...(this.o.fixtures?.keys() ?? [])];
  }

  /** The seed, read from the contract on first use (not at start-up: cold start matters). */
  private get seedFactory(): SeedFactory {
    return (this.seeds ??= new SeedFactory(readSeed(this.model)));
  }

  /**
   * The workspace's data, seeded on its first use (read from the database, when it holds it). In memory, beyond
   * `limits.workspaces` a new workspace answers 503 `capacity_exceeded`: no workspace is ever forgotten to make room
   * (issue 22: eviction deleted a team's data). Kept in a database, the least recently used idle one leaves memory
   * instead, to be read back when next used (DB6).
   */
  workspace(id: string): WorkspaceData {
    let ws = this.workspaces.get(id);
    if (ws) {
      if (this.kept && id !== this.lastUsed && this.workspaces.size > 1) {
        this.workspaces.delete(id);
        this.workspaces.set(id, ws); // most recently used last
      }
      this.lastUsed = id;
      this.kept?.touched.add(ws);
      return ws;
    }
    if (!this.kept && this.workspaces.size >= this.limits.workspaces) {
      throw new CapReached("capacity_exceeded", `The mock keeps at most ${this.limits.workspaces} workspaces and has no room for another (--max-workspaces); POST /__mock/reset forgets them all.`);
    }
    ws = this.kept ? this.fromDatabase(id) : this.seeded(id);
    this.workspaces.set(id, ws);
    this.lastUsed = id;
    if (this.kept && this.workspaces.size > this.limits.workspaces) this.unloadOne();
    return ws;
  }

  /**
   * Keeps the store in `rows` from now on (state-db.ts): what memory holds is dropped, each workspace is read back
   * when first used, and `persist()` writes what changed. `flush` writes now (before a workspace leaves memory).
   */
  keepIn(rows: StoreRows, flush: () => void): StorePersistence {
    const persistence = new StorePersistence(this.model, this.o.contract, rows);
    // What memory holds (a JSON state file being migrated) is written whole first.
    for (const ws of this.workspaces.values()) persistence.writeWhole(ws)();
    for (const id of [...this.workspaces.keys()]) this.forget(id);
    this.kept = { persistence, journal: new Journal(), touched: new Set(), writing: new Set(), cleared: false, flush };
    return persistence;
  }

  /**
   * Writes what changed since the last call into the rows given to `keepIn` (state-db.ts calls it in a transaction);
   * returns what to call once that transaction has committed (nothing counts as written before, DB9).
   */
  persist(): () => void {
    const k = this.kept;
    if (!k) return () => {};
    // What this call writes leaves `touched` now, not once committed: a shared database's commit is asynchronous
    // (state-pg.ts), and a workspace touched while it waits (a request's Idempotency-Key answer remembered) must stay
    // touched for the next commit; clearing it then left that answer unwritten (SB19). `writing` keeps the batch
    // for a rollback.
    const batch = new Set(k.touched);
    k.touched.clear();
    for (const ws of batch) k.writing.add(ws);
    const cleared = k.cleared;
    k.cleared = false;
    if (cleared) k.persistence.rows.clear();
    const written = k.persistence.write(k.journal, batch);
    return () => {
      written();
      for (const ws of batch) k.writing.delete(ws);
    };
  }

  /**
   * A commit failed (state-db.ts): every workspace changed since the last commit leaves memory, its timers stopped,
   * to be read back as the database holds it when next used; what the journal noted is dropped with it. A change
   * that was not written is never seen (DB9).
   */
  rollback(): void {
    const k = this.kept;
    if (!k) return;
    const followed: Array<{ workspaceId: string; log: EventLog }> = [];
    for (const ws of this.unwritten(k)) {
      if (this.workspaces.get(ws.id) !== ws) continue;
      followed.push(...this.followedLogs(ws));
      this.forget(ws.id);
    }
    k.journal.changed.clear();
    k.journal.removed.length = 0;
    k.touched.clear();
    k.writing.clear();
    if (this.lastUsed && !this.workspaces.has(this.lastUsed)) this.lastUsed = null;
    this.handOver(followed);
  }

  /** The event logs of `ws` that open streams follow. */
  private followedLogs(ws: WorkspaceData): Array<{ workspaceId: string; log: EventLog }> {
    if (!this.streamed) return [];
    return [...ws.table(this.streamed.coll).all()].flatMap((rec) => (rec.log?.followed ? [{ workspaceId: ws.id, log: rec.log }] : []));
  }

  /**
   * The streams that followed a log of a workspace put back by `rollback` follow the log read back from the
   * database from now on (log.ts `adopt`): they show what is committed next, and end when it ends (issue 47).
   * A resource the database does not hold (its create was not written) ends its streams.
   */
  private handOver(followed: Array<{ workspaceId: string; log: EventLog }>): void {
    for (const { workspaceId, log } of followed) {
      let fresh: EventLog | undefined;
      try {
        fresh = this.eventLog(workspaceId, log.resourceId);
      } catch {
        fresh = undefined; // not readable now: the streams end, and their clients reconnect with Last-Event-ID
      }
      if (fresh) fresh.adopt(log);
      else log.abandon();
    }
  }

  private fromDatabase(id: string): WorkspaceData {
    const k = this.kept!;
    const loaded = k.persistence.load(id);
    const ws = loaded ?? this.seeded(id);
    if (!loaded) k.persistence.adopt(ws, false);
    ws.journal = k.journal;
    k.touched.add(ws);
    if (loaded) for (const t of ws.tables.values()) for (const r of t.all()) if (r.coll.machine) this.driver.arm(ws, r, this.stepBackupMs);
    return ws;
  }

  /**
   * Keeps workspace `id` in memory (never unloaded) until the returned release is called: a request in flight holds
   * its workspace, so what it writes (its Idempotency-Key answer, its records) lands in the object the store keeps,
   * and an open stream's resource keeps moving (decision DB12). Loads nothing; a release is idempotent. Null when
   * the store is not kept in a database (`keepIn`, set up before the first request): in memory alone a workspace
   * never leaves, so there is nothing to hold, and a read spends no listener on it (RM26).
   */
  hold(id: string): (() => void) | null {
    if (!this.kept) return null;
    this.held.set(id, (this.held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(id) ?? 1) - 1;
      if (left > 0) this.held.set(id, left);
      else this.held.delete(id);
    };
  }

  /** The workspaces with changes not yet written: touched, being written, or in the journal. */
  private unwritten(k: NonNullable<Store["kept"]>): Set<WorkspaceData> {
    const out = new Set<WorkspaceData>([...k.touched, ...k.writing]);
    for (const r of k.journal.changed) if (r.table?.ws) out.add(r.table.ws);
    for (const r of k.journal.removed) out.add(r.ws);
    return out;
  }

  /**
   * Kept in a database, a workspace leaves memory rather than being forgotten: the least recently used one whose
   * resources are not moving (no step or time-out pending), else the least recently used one, once what changed is
   * written; it is read back when next used. None held by a request or stream in flight (`hold`).
   */
  private unloadOne(): void {
    this.kept!.flush();
    const moving = (ws: WorkspaceData) => [...ws.tables.values()].some((t) => [...t.all()].some((r) => r.cancels.length > 0));
    // Never one held by a request or stream in flight: memory may pass the cap while all are (DB12). Nor one whose
    // changes are not written yet: `flush` writes them at once with SQLite, but a shared database's commit is
    // asynchronous (state-pg.ts), and one that left memory before it lost its fields and entries (SB19).
    const unwritten = this.unwritten(this.kept!);
    const candidates = [...this.workspaces].filter(([id, w]) => id !== this.lastUsed && !this.held.has(id) && !unwritten.has(w));
    // Idle ones first; when every one is moving (seeded resources move too, RM6), the least recently used one
    // leaves with its timers stopped: what it had reached is written, and reading it back arms them again.
    const [id, ws] = candidates.find(([, w]) => !moving(w)) ?? candidates[0] ?? [];
    if (!id || !ws) return;
    for (const t of ws.tables.values()) for (const r of t.all()) r.cancelTimers();
    this.workspaces.delete(id);
    this.kept!.touched.delete(ws);
  }

  /**
   * Throws the cap's answer when `coll` of `ws` may not take another record created by a request: 403
   * `limit_reached` at `limits.records`, 503 `capacity_exceeded` when its lifecycle would pass `limits.lifecycleTimers`.
   */
  checkRoom(ws: WorkspaceData, coll: CollectionModel): void {
    if (ws.table(coll).size >= this.limits.records) {
      throw new CapReached("limit_reached", `This workspace has ${this.limits.records} ${nameOf(coll.schema)}s, the most the mock keeps per collection (--max-records): delete some first.`);
    }
    if (coll.machine && this.pendingSteps >= this.limits.lifecycleTimers) {
      throw new CapReached("capacity_exceeded", `${this.limits.lifecycleTimers} resources are still moving through their lifecycles, the most the mock runs at once (--max-lifecycle-timers): retry once some have finished.`);
    }
  }

  private seeded(id: string): WorkspaceData {
    const fixture = this.o.fixtures?.get(id);
    if (fixture) return this.fromFixture(id, fixture);
    const ws = new WorkspaceData(id);
    const seed = this.seedFactory.for(id);
    for (const r of seed.records) ws.table(this.model.collections.get(r.coll)!).add(new Rec(this.model.collections.get(r.coll)!, r.parent, ws.seq++, r.value));
    for (const c of seed.children) ws.child(c.schema).set(c.parent, c.value);
    for (const [path, v] of Object.entries(seed.singletons)) ws.singletons.set(path, v);
    this.moveSeeded(ws);
    return ws;
  }

  /** A fixture workspace: the file's records, each as it was written, resting until acted on unless it opts into its lifecycle. */
  private fromFixture(id: string, records: readonly FixtureItem[]): WorkspaceData {
    const ws = new WorkspaceData(id);
    for (const r of records) {
      if (r.child) ws.child(r.child.schema).set(r.parent, structuredClone(r.value));
      else ws.table(r.coll).add(new Rec(r.coll, r.parent, ws.seq++, structuredClone(r.value)));
    }
    if (this.streamed) for (const r of ws.table(this.streamed.coll).all()) this.streamed.hooks.deriveResting(ws, r);
    // `metadata.lifecycle: run` (a fixture option, decision RM23): it moves on from its state as a created one does.
    this.moveSeeded(ws, (r) => r.value.metadata?.lifecycle === "run");
    return ws;
  }

  /**
   * Seeded resources whose state the service's processing leaves (a `processing` analysis, a `queued` run) move
   * on as created ones do (decision RM6); the others (an alert a person acknowledges) rest until moved.
   */
  private moveSeeded(ws: WorkspaceData, opted: (r: Rec) => boolean = () => true): void {
    for (const t of ws.tables.values()) {
      for (const r of t.all()) {
        const m = r.coll.machine;
        if (!m || !opted(r) || !m.transitions.some((x) => x.trigger === "async" && x.scenario === undefined && x.from.includes(r.value[m.property]))) continue;
        r.driven = true;
        this.driver.arm(ws, r);
      }
    }
  }

  /**
   * How a scheduled lifecycle step runs (Driver's `gate`): null runs it at once; a shared database (state-pg.ts)
   * runs it under the workspace's lock, once across replicas (decision SB8).
   */
  stepGate: ((ws: WorkspaceData, rec: Rec, run: () => void) => void) | null = null;

  /**
   * How much later than due the steps of a resource read from the database are scheduled (state-pg.ts, SB17): the
   * replica that wrote it runs them on time; every other one holds a later copy, run only if the resource has not
   * moved by then (its writer gone). 0 alone on a database.
   */
  stepBackupMs = 0;

  /** The workspace `id` as memory holds it now, or undefined (not loaded, or gone). Loads nothing. */
  loaded(id: string): WorkspaceData | undefined {
    return this.workspaces.get(id);
  }

  /**
   * Drops workspace `id` from memory, its timers stopped (another replica changed it: state-pg.ts reads it again).
   * What the journal noted of it is dropped with it: the database holds the newer version.
   */
  drop(id: string): void {
    const ws = this.workspaces.get(id);
    if (!ws) return;
    this.forget(id);
    this.unjournal(ws);
    if (this.lastUsed === id) this.lastUsed = null;
  }

  /** Every workspace leaves memory, as by `drop` (another replica reset the mock: state-pg.ts, SB20). */
  dropAll(): void {
    for (const id of [...this.workspaces.keys()]) this.drop(id);
  }

  /**
   * Workspace `id` brought up to what another replica committed (state-pg.ts, decision SB15): `changes` holds the
   * rows written since the version memory holds and those deleted, each checked as when read (a bad one throws,
   * naming it, before anything changes). A changed resource is replaced, its timers stopped and the new copy's
   * armed; the rest of the workspace stays as it is. What the journal noted of it is dropped, as by `drop`.
   */
  update(id: string, changes: StoreChanges): void {
    const ws = this.workspaces.get(id);
    const k = this.kept;
    if (!ws || !k) return;
    this.unjournal(ws);
    const { added, removed } = k.persistence.apply(ws, changes);
    for (const r of removed) r.cancelTimers();
    for (const r of added) if (r.coll.machine) this.driver.arm(ws, r, this.stepBackupMs);
  }

  /** What the journal noted of `ws` is forgotten (the database holds a newer version of it). */
  private unjournal(ws: WorkspaceData): void {
    const k = this.kept;
    if (!k) return;
    k.touched.delete(ws);
    for (const rec of [...k.journal.changed]) if (rec.table?.ws === ws) k.journal.changed.delete(rec);
    const kept = k.journal.removed.filter((r) => r.ws !== ws);
    k.journal.removed.splice(0, k.journal.removed.length, ...kept);
  }

  private forget(id: string): void {
    const ws = this.workspaces.get(id);
    if (!ws) return;
    for (const t of ws.tables.values()) for (const r of t.all()) r.cancelTimers();
    this.workspaces.delete(id);
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
    const value = buildRecord(this.o.contract, null, coll, fields, { workspaceId: ws.id, parent: null, now: this.now(), template: this.template(null, coll), random: this.random?.of(ws.id) });
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

  /** A new event log of the resource `key` of `ws`, tapped when the sandbox shares its events (option `tapFor`). */
  newLog(ws: WorkspaceData, key: string): EventLog {
    return new EventLog(key, this.o.tapFor?.(ws.id), this.o.publish);
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
    if (!this.kept) return;
    this.kept.cleared = true;
    this.kept.journal.changed.clear();
    this.kept.journal.removed.length = 0;
    this.kept.touched.clear();
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
      workspaces[id] = { seq: ws.seq, records, children, singletons: Object.fromEntries(ws.singletons), idempotency: ws.idempotency.snapshot() };
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
      if (r.log) rec.log = EventLog.restore(rec.key, r.log, this.o.tapFor?.(id), this.o.publish);
      ws.table(coll).add(rec);
    });
    for (const [schema, m] of Object.entries<Json>(w.children ?? {})) for (const [parent, v] of Object.entries(m)) ws.child(schema).set(parent, v);
    for (const [path, v] of Object.entries(w.singletons ?? {})) ws.singletons.set(path, v);
    ws.idempotency = IdempotencyRecords.restore(w.idempotency, `store: workspaces.${id}.idempotency`);
    return ws;
  }
}
