// The records of one workspace: per collection a table keyed by (parent, key), each parent's records kept in list
// order (newest first by the collection's time property; collections without one keep the order records were
// added in), so a page is a slice, never a sort. A record keeps its serialised JSON until it changes.
import { IdempotencyRecords } from "./idempotency-records.js";
import type { Json } from "../contract/contract-build.js";
import type { EventLog } from "./log.js";
import type { ChildModel, CollectionModel } from "./model.js";
import type { Cancel } from "../clock/clock.js";

/** Where a record stands in its list: its time (ms, 0 without one) and the order it was added in. */
export interface Position {
  time: number;
  seq: number;
}

export class Rec implements Position {
  readonly time: number;
  private buf: Buffer | null = null;
  /** The table holding it: told of each change, so its cached pages are dropped. */
  table: Table | null = null;
  /** The scenario its lifecycle takes (chosen at creation; dropped once its transition is taken). */
  scenario: string | undefined = undefined;
  /** Whether the service's own processing moves it (created here, or moved here once); seeded records rest until then. */
  driven = false;
  /** Moved by someone else than the service's processing (a live session feeding its media). */
  held = false;
  /** Its pending processing steps and time-outs. */
  cancels: Cancel[] = [];
  /** Its event log, for resources that have one (made on first use). */
  log: EventLog | null = null;
  /** What it was created from that it does not show (an analysis' inline `text`): completion derives from it. */
  input: { text?: string } | null = null;

  constructor(
    readonly coll: CollectionModel,
    readonly parent: string | null,
    readonly seq: number,
    public value: Json,
  ) {
    const t = coll.time ? Date.parse(value[coll.time]) : NaN;
    this.time = Number.isFinite(t) ? t : 0;
  }

  get key(): string {
    return this.value[this.coll.key];
  }

  /** The record as JSON bytes, serialised once per version. */
  json(): Buffer {
    return (this.buf ??= Buffer.from(JSON.stringify(this.value)));
  }

  /** Call after changing `value` (or what is kept with it: its event log, its child records). */
  changed(): void {
    this.buf = null;
    if (!this.table) return;
    this.table.version++;
    this.table.ws?.journal?.changed.add(this);
  }

  /** Something kept with it changed (its event log, its child record) but not its value: written again, lists unchanged. */
  kept(): void {
    this.table?.ws?.journal?.changed.add(this);
  }

  cancelTimers(): void {
    for (const c of this.cancels.splice(0)) c();
  }
}

/** Does `a` come before `b` in lists of a collection (`timed`: newest first; else in the order added)? */
export function comesBefore(a: Position, b: Position, timed: boolean): boolean {
  if (!timed) return a.seq < b.seq;
  return a.time !== b.time ? a.time > b.time : a.seq > b.seq;
}

/** Pages kept per table, at most; a frontend asks for the same few pages again and again. */
const MAX_CACHED_PAGES = 64;

/** One collection's records in one workspace. */
export class Table {
  private readonly byKey = new Map<string, Rec>();
  private readonly lists = new Map<string, Rec[]>();
  /** Changes with every record added, removed or changed: a page made at another version is stale. */
  version = 0;
  private readonly pages = new Map<string, { version: number; body: Buffer }>();

  constructor(
    readonly coll: CollectionModel,
    /** The workspace holding it (its journal hears of every record added, changed or removed). */
    readonly ws: WorkspaceData | null = null,
  ) {}

  /** A page's bytes for `key` (parent and query), made by `make` unless made since the last change. */
  page(key: string, make: () => Buffer): Buffer {
    const hit = this.pages.get(key);
    if (hit && hit.version === this.version) return hit.body;
    if (this.pages.size >= MAX_CACHED_PAGES) this.pages.clear();
    const body = make();
    this.pages.set(key, { version: this.version, body });
    return body;
  }

  private static id(parent: string | null, key: string): string {
    return parent === null ? key : `${parent}\u0000${key}`;
  }

  get(parent: string | null, key: string): Rec | undefined {
    return this.byKey.get(Table.id(parent, key));
  }

  /** Records held, all parents together. */
  get size(): number {
    return this.byKey.size;
  }

  /** Every record whose property `name` holds `value` (a linked resource's followers). */
  *where(name: string, value: unknown): Iterable<Rec> {
    for (const r of this.byKey.values()) if (r.value[name] === value) yield r;
  }

  *all(): Iterable<Rec> {
    yield* this.byKey.values();
  }

  /** The records of one parent (null: a top-level collection), in list order. */
  ordered(parent: string | null): readonly Rec[] {
    return this.lists.get(parent ?? "") ?? [];
  }

  add(rec: Rec): void {
    rec.table = this;
    this.version++;
    this.ws?.journal?.changed.add(rec);
    this.byKey.set(Table.id(rec.parent, rec.key), rec);
    const list = this.lists.get(rec.parent ?? "") ?? [];
    this.lists.set(rec.parent ?? "", list);
    list.splice(insertionIndex(list, rec, this.coll.time !== null), 0, rec);
  }

  remove(rec: Rec): void {
    rec.table = null;
    this.version++;
    const journal = this.ws?.journal;
    if (journal) {
      journal.changed.delete(rec);
      journal.removed.push({ ws: this.ws!, coll: this.coll.schema, parent: rec.parent, key: rec.key });
    }
    this.byKey.delete(Table.id(rec.parent, rec.key));
    const list = this.lists.get(rec.parent ?? "");
    const i = list?.indexOf(rec) ?? -1;
    if (i >= 0) list!.splice(i, 1);
  }
}

/** The first index whose record comes after `pos` (binary search over a list in list order). */
export function insertionIndex(list: readonly Position[], pos: Position, timed: boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comesBefore(list[mid]!, pos, timed) || (list[mid]!.time === pos.time && list[mid]!.seq === pos.seq)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * What changed since the durable state was last written (state-db.ts): the records added or changed, the ones
 * removed. Only a store kept in a database has one; in memory alone nothing is noted.
 */
export class Journal {
  readonly changed = new Set<Rec>();
  readonly removed: Array<{ ws: WorkspaceData; coll: string; parent: string | null; key: string }> = [];
}

/**
 * Everything one workspace holds. Besides its records, every other field (`seq`, `singletons`, one a feature adds)
 * is kept in the database as one JSON row of its own (store/persist.ts): a field must hold JSON, a Map or a Set.
 */
export class WorkspaceData {
  readonly tables = new Map<string, Table>();
  /** Child records (`Transcript`): schema → parent key → value. */
  readonly children = new Map<string, Map<string, Json>>();
  /** Singletons by path. */
  readonly singletons = new Map<string, Json>();
  /** Order in which records were added, across the workspace. */
  seq = 0;
  /** Notes changes for the database, when there is one (not a field of the workspace's own state). */
  journal: Journal | null = null;
  /** The answers remembered per `Idempotency-Key` (stages/idempotency.ts). */
  idempotency = new IdempotencyRecords();

  constructor(readonly id: string) {}

  table(coll: CollectionModel): Table {
    let t = this.tables.get(coll.schema);
    if (!t) this.tables.set(coll.schema, (t = new Table(coll, this)));
    return t;
  }

  child(schema: string): Map<string, Json> {
    let m = this.children.get(schema);
    if (!m) this.children.set(schema, (m = new Map()));
    return m;
  }
}

/** One record of a fixture workspace, checked (fixtures.ts reads the file; the store holds the records). */
export interface FixtureRecord {
  coll: CollectionModel;
  child?: undefined;
  parent: string | null;
  value: Json;
}

/** A child document of a fixture workspace (an analysis's Transcript), under its parent's id. */
export interface FixtureChild {
  child: ChildModel;
  coll?: undefined;
  parent: string;
  value: Json;
}

export type FixtureItem = FixtureRecord | FixtureChild;
