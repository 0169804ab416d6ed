// The store kept in a database (state-db.ts, `--state FILE`): a row per record, a row per other field of a
// workspace, written as they change (the Journal of records.ts says which), read back a workspace at a time when
// it is first used, and every record checked against the contract's schemas once, when the mock starts.
//
//   record row   workspace, collection, parent ('' for none), key, seq, value (the record's JSON), extra (what is
//                kept with it: its lifecycle's scenario, whether processing drives it, its child records such as
//                an analysis's transcript). Not its event log: that is written again from the stored records
//                when first needed (analysis.ts `logOf`), with the same events and ids (decision DB3).
//   field row    workspace, field name, JSON: every field of WorkspaceData but its id, tables, children and
//                journal (`seq`, `singletons`, whatever a feature adds); Maps and Sets are tagged so they come back
//                as Maps and Sets. A field is written when its JSON differs from what was written last.
//   entry row    workspace, field name, key, JSON: a field that grows with history (remembered Idempotency-Key
//                answers) is a RowMap (row-map.ts), a row per key, written per key set or deleted (decision DB11).
import type { Contract, Json } from "../contract/contract-build.js";
import type { JsonPath } from "../state/json-file.js";
import { RowMap, type RowChange } from "../state/row-map.js";
import { componentCheck, SnapshotError } from "../state/snapshot.js";
import type { StoreModel } from "./model.js";
import { Rec, WorkspaceData, type Journal } from "./records.js";

export interface RecordRow {
  ws: string;
  coll: string;
  parent: string;
  key: string;
  seq: number;
  value: string;
  extra: string;
}

export interface FieldRow {
  ws: string;
  name: string;
  value: string;
}

export interface EntryRow {
  name: string;
  key: string;
  value: string;
}

/** Where the store's rows live (state-db.ts keeps them in SQLite). */
export interface StoreRows {
  records(ws: string): Iterable<RecordRow>;
  fields(ws: string): Iterable<FieldRow>;
  putRecord(row: RecordRow): void;
  deleteRecord(ws: string, coll: string, parent: string, key: string): void;
  putField(row: FieldRow): void;
  deleteField(ws: string, name: string): void;
  /** The entries of `ws`'s RowMap fields, oldest first. */
  entries(ws: string): Iterable<EntryRow>;
  putEntry(ws: string, name: string, key: string, value: string): void;
  deleteEntry(ws: string, name: string, key: string): void;
  /** Forgets every workspace (POST /__mock/reset). */
  clear(): void;
}

/** What changed in a workspace since a version (state-pg.ts, SB15): rows written since, and rows deleted. */
export interface StoreChanges {
  records: readonly RecordRow[];
  fields: readonly FieldRow[];
  entries: readonly EntryRow[];
  gone: ReadonlyArray<{ kind: "record" | "field" | "entry"; name: string; parent: string; key: string }>;
}

/** A stored value nested deeper than this is refused when read (no contract schema nests so deep). */
export const MAX_STORED_DEPTH = 64;

/** Fields of WorkspaceData that are not rows of their own. */
const NOT_FIELDS = new Set(["id", "tables", "children", "journal"]);

/** A stored row that cannot be read back: the message names workspace, collection, id and the rule broken. */
export class StoredRecordError extends Error {}

/**
 * How deeply `text` (JSON) nests, counted without parsing: a value nested a million deep would overflow the stack
 * of everything that walks it (JSON.stringify, ajv), so it is measured before anything parses it.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parses stored JSON after checking its depth; `fail` says what is wrong. */
export function parseStored(text: string, fail: (why: string) => never): Json {
  if (jsonDepth(text) > MAX_STORED_DEPTH) fail(`nested deeper than ${MAX_STORED_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail(`not JSON (${(e as Error).message})`);
  }
}

function encodeField(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x instanceof Map ? { $map: [...x] } : x instanceof Set ? { $set: [...x] } : x));
}

function decodeField(text: string, fail: (why: string) => never): unknown {
  const v = parseStored(text, fail);
  return JSON.parse(JSON.stringify(v), (_k, x) => (x && typeof x === "object" && Array.isArray(x.$map) ? new Map(x.$map) : x && typeof x === "object" && Array.isArray(x.$set) ? new Set(x.$set) : x));
}

/** The RowMap a workspace field is or holds (`IdempotencyRecords.rows`), or null. */
function rowMapOf(v: unknown): RowMap<unknown> | null {
  if (v instanceof RowMap) return v;
  const rows = (v as { rows?: unknown } | null)?.rows;
  return rows instanceof RowMap ? rows : null;
}

/** The RowMap fields of `ws`, by name. */
function rowFieldsOf(ws: WorkspaceData): Array<[string, RowMap<unknown>]> {
  return Object.entries(ws).flatMap(([k, v]) => {
    const rows = rowMapOf(v);
    return rows ? [[k, rows] as [string, RowMap<unknown>]] : [];
  });
}

/** The fields of `ws` kept as rows of their own, with their JSON (not its RowMaps: those are entries). */
export function fieldsOf(ws: WorkspaceData): Array<[string, string]> {
  return Object.entries(ws)
    .filter(([k, v]) => !NOT_FIELDS.has(k) && !rowMapOf(v))
    .map(([k, v]) => [k, encodeField(v)]);
}

/**
 * A field read back: a Map or Set is filled in place (it may be readonly); a RowMap field found as a field row (a
 * database of the first format, where it was one JSON value) is read by its class's `restore` and noted, so it is
 * written as entries and its field row deleted with the next change; anything else is assigned.
 */
function restoreField(ws: WorkspaceData, name: string, value: unknown): void {
  const own = ws as unknown as Record<string, unknown>;
  const current = own[name];
  const rows = rowMapOf(current);
  if (rows) {
    const restore = (current as { constructor: { restore?: (d: unknown, where: string) => unknown } }).constructor.restore;
    const read = rowMapOf(restore ? restore(value, `workspace ${ws.id}, field ${name}`) : null);
    for (const [k, v] of read ?? []) rows.set(k, v);
  } else if (current instanceof Map && value instanceof Map) {
    current.clear();
    for (const [k, v] of value) current.set(k, v);
  } else if (current instanceof Set && value instanceof Set) {
    current.clear();
    for (const v of value) current.add(v);
  } else own[name] = value;
}

/** Reads, checks and writes the store's rows; one per store. */
export class StorePersistence {
  /** What was last written of each workspace's fields (compared, so an unchanged field is not written again). */
  private readonly written = new WeakMap<WorkspaceData, Map<string, string>>();
  /** Workspaces read from a database of the first format: the field rows of their RowMaps, to delete. */
  private readonly legacy = new WeakMap<WorkspaceData, string[]>();
  /** Workspaces with rows in the database (a seeded one is written whole on its first change). */
  private readonly stored = new WeakSet<WorkspaceData>();
  /** Child schemas by the collection of their parent (`Analysis` → [`Transcript`]). */
  private readonly childrenOf = new Map<string, string[]>();

  constructor(
    private readonly model: StoreModel,
    private readonly contract: Contract,
    readonly rows: StoreRows,
  ) {
    for (const c of model.children) this.childrenOf.set(c.parent, [...(this.childrenOf.get(c.parent) ?? []), c.schema]);
  }

  /** A workspace just seeded or read: what it holds now counts as written. */
  adopt(ws: WorkspaceData, fromDatabase: boolean): void {
    this.written.set(ws, new Map(fieldsOf(ws)));
    if (fromDatabase) this.stored.add(ws);
  }

  /** The workspace `id` as the database holds it, or null when it holds nothing of it. */
  load(id: string): WorkspaceData | null {
    const ws = new WorkspaceData(id);
    let any = false;
    const rowFields = new Map(rowFieldsOf(ws));
    for (const row of this.rows.fields(id)) {
      any = true;
      if (rowFields.has(row.name)) this.legacy.set(ws, [...(this.legacy.get(ws) ?? []), row.name]);
      restoreField(ws, row.name, decodeField(row.value, (why) => this.refuse(`workspace ${id}, field ${row.name}: ${why}`)));
    }
    const entries = new Map<string, EntryRow[]>();
    for (const row of this.rows.entries(id)) entries.set(row.name, [...(entries.get(row.name) ?? []), row]);
    for (const [name, rows] of entries) {
      any = true;
      const field = rowFields.get(name) ?? this.refuse(`workspace ${id}: entries of ${name}, which is no field of a workspace`);
      try {
        field.fill(rows, `workspace ${id}, field ${name}`);
      } catch (e) {
        this.refuse((e as Error).message);
      }
    }
    for (const row of this.rows.records(id)) {
      any = true;
      this.readRecord(ws, row);
    }
    if (!any) return null;
    this.adopt(ws, true);
    return ws;
  }

  /**
   * Brings `ws` up to what another replica committed (`changes`, SB15): every row is checked first, as when read
   * whole (a bad one throws naming it and nothing changes); then deleted rows leave, changed records are replaced
   * (new Recs: a step scheduled for an old one sees it gone), fields and entries set. Nothing is noted in the
   * journal: the database holds it. Returns the records put in and taken out (the store arms and stops them).
   */
  apply(ws: WorkspaceData, changes: StoreChanges): { added: Rec[]; removed: Rec[] } {
    const read = changes.records.map((row) => this.recordOf(row));
    const fields = changes.fields.map((row) => [row.name, decodeField(row.value, (why) => this.refuse(`workspace ${ws.id}, field ${row.name}: ${why}`))] as const);
    const rowFields = new Map(rowFieldsOf(ws));
    const entries = new Map<string, { rows: EntryRow[]; removed: string[] }>();
    const of = (name: string) => {
      if (!rowFields.has(name)) this.refuse(`workspace ${ws.id}: entries of ${name}, which is no field of a workspace`);
      return entries.get(name) ?? entries.set(name, { rows: [], removed: [] }).get(name)!;
    };
    for (const row of changes.entries) of(row.name).rows.push(row);
    for (const g of changes.gone) if (g.kind === "entry") of(g.name).removed.push(g.key);
    const journal = ws.journal;
    ws.journal = null; // what is applied here is no change of this replica's to write
    const added: Rec[] = [];
    const removed: Rec[] = [];
    const take = (schema: string, parent: string, key: string) => {
      const coll = this.model.collections.get(schema);
      const old = coll && ws.tables.get(schema)?.get(parent === "" ? null : parent, key);
      if (!coll || !old) return;
      ws.table(coll).remove(old);
      for (const child of this.childrenOf.get(schema) ?? []) ws.children.get(child)?.delete(key);
      removed.push(old);
    };
    try {
      for (const g of changes.gone) {
        if (g.kind === "record") take(g.name, g.parent, g.key);
        else if (g.kind === "field") this.unsetField(ws, g.name);
      }
      for (const { rec, children } of read) {
        take(rec.coll.schema, rec.parent ?? "", rec.key);
        ws.table(rec.coll).add(rec);
        for (const [schema, child] of children) ws.child(schema).set(rec.key, child);
        added.push(rec);
      }
      for (const [name, value] of fields) restoreField(ws, name, value);
      for (const [name, e] of entries) rowFields.get(name)!.apply(e.rows, e.removed, `workspace ${ws.id}, field ${name}`);
    } finally {
      ws.journal = journal;
    }
    this.written.set(ws, new Map(fieldsOf(ws)));
    return { added, removed };
  }

  /** A field whose row was deleted (a first-format field folded into entries): back to a new workspace's value. */
  private unsetField(ws: WorkspaceData, name: string): void {
    if (rowMapOf((ws as unknown as Record<string, unknown>)[name])) return;
    const start = (new WorkspaceData(ws.id) as unknown as Record<string, unknown>)[name];
    if (start === undefined) delete (ws as unknown as Record<string, unknown>)[name];
    else restoreField(ws, name, start);
  }

  /** Checks one stored record: JSON no deeper than allowed, of a collection of the contract, valid against its schema. */
  check(row: RecordRow): void {
    this.readRecord(new WorkspaceData(row.ws), row);
  }

  private readRecord(ws: WorkspaceData, row: RecordRow): Rec {
    const { rec, children } = this.recordOf(row);
    for (const [schema, child] of children) ws.child(schema).set(rec.key, child);
    ws.table(rec.coll).add(rec);
    return rec;
  }

  /** A stored record checked and read (not yet in any table), with its child records (`extra.children`). */
  private recordOf(row: RecordRow): { rec: Rec; children: Array<[string, Json]> } {
    const where = `workspace ${row.ws}, collection ${row.coll}, id ${row.key}`;
    const fail = (why: string): never => this.refuse(`${where}: ${why}`);
    const coll = this.model.collections.get(row.coll) ?? fail(`${row.coll} is not a collection of the contract`);
    const value = parseStored(row.value, fail);
    try {
      componentCheck(this.contract, coll.schema)(value, []);
    } catch (e) {
      if (!(e instanceof SnapshotError)) throw e;
      fail(`${at(e.path)}${e.reason}`);
    }
    if (value[coll.key] !== row.key) fail(`its ${coll.key} is ${JSON.stringify(value[coll.key])}, not the row's key`);
    const extra = parseStored(row.extra, (why) => fail(`extra: ${why}`));
    const rec = new Rec(coll, row.parent === "" ? null : row.parent, row.seq, value);
    rec.scenario = typeof extra.scenario === "string" ? extra.scenario : undefined;
    rec.driven = extra.driven === true;
    return { rec, children: Object.entries<Json>(extra.children ?? {}) };
  }

  private refuse(message: string): never {
    throw new StoredRecordError(message);
  }

  /**
   * Writes what the journal noted, and the changed fields of `touched` workspaces. Returns what to do once the
   * transaction has committed: empty the journal of what was written and remember what the database now holds.
   * Nothing is marked before then, so a transaction that fails leaves every change to be written again (DB9).
   */
  write(journal: Journal, touched: Iterable<WorkspaceData>): () => void {
    const marks: Array<() => void> = [];
    const whole = new Set<WorkspaceData>();
    const removed = journal.removed.length;
    for (const r of journal.removed) {
      if (this.stored.has(r.ws)) this.rows.deleteRecord(r.ws.id, r.coll, r.parent ?? "", r.key);
      else whole.add(r.ws);
    }
    const changed = [...journal.changed];
    for (const rec of changed) {
      const ws = rec.table?.ws;
      if (!ws) continue;
      if (!this.stored.has(ws)) whole.add(ws);
      else this.rows.putRecord(this.row(ws, rec));
    }
    for (const ws of touched) {
      const fields = fieldsOf(ws);
      const last = this.written.get(ws) ?? new Map<string, string>();
      const entries = rowFieldsOf(ws).map(([name, rows]) => [name, rows, rows.changes()] as const);
      const unchanged = fields.every(([k, v]) => last.get(k) === v) && entries.every(([, , c]) => !c.length);
      if (!this.stored.has(ws) && !whole.has(ws) && unchanged) continue;
      if (!this.stored.has(ws)) {
        whole.add(ws);
        continue;
      }
      for (const [name, value] of fields) if (last.get(name) !== value) this.rows.putField({ ws: ws.id, name, value });
      for (const [name, , changes] of entries) this.putEntries(ws.id, name, changes);
      const legacy = this.legacy.get(ws) ?? [];
      for (const name of legacy) this.rows.deleteField(ws.id, name);
      marks.push(() => {
        this.written.set(ws, new Map(fields));
        for (const [, rows, changes] of entries) rows.written(changes);
        if (legacy.length) this.legacy.delete(ws);
      });
    }
    for (const ws of whole) marks.push(this.writeWhole(ws));
    return () => {
      journal.removed.splice(0, removed);
      for (const rec of changed) journal.changed.delete(rec);
      for (const mark of marks) mark();
    };
  }

  /**
   * Every row of a workspace not yet in the database (seeded, then changed for the first time); returns what marks
   * it stored, to be called once the rows are committed.
   */
  writeWhole(ws: WorkspaceData): () => void {
    for (const t of ws.tables.values()) for (const rec of t.all()) this.rows.putRecord(this.row(ws, rec));
    const fields = fieldsOf(ws);
    for (const [name, value] of fields) this.rows.putField({ ws: ws.id, name, value });
    const entries = rowFieldsOf(ws);
    for (const [name, rows] of entries) this.putEntries(ws.id, name, rows.changes(true));
    return () => {
      this.written.set(ws, new Map(fields));
      this.stored.add(ws);
      for (const [, rows] of entries) rows.written(rows.changes());
    };
  }

  private putEntries(ws: string, name: string, changes: readonly RowChange[]): void {
    for (const [key, json] of changes) {
      if (json === null) this.rows.deleteEntry(ws, name, key);
      else this.rows.putEntry(ws, name, key, json);
    }
  }

  private row(ws: WorkspaceData, rec: Rec): RecordRow {
    const children: Record<string, Json> = {};
    for (const schema of this.childrenOf.get(rec.coll.schema) ?? []) {
      const child = ws.children.get(schema)?.get(rec.key);
      if (child !== undefined) children[schema] = child;
    }
    const extra = { scenario: rec.scenario ?? null, driven: rec.driven, children };
    return { ws: ws.id, coll: rec.coll.schema, parent: rec.parent ?? "", key: rec.key, seq: rec.seq, value: rec.json().toString("utf8"), extra: JSON.stringify(extra) };
  }
}

function at(path: JsonPath): string {
  return path.length ? `/${path.join("/")}: ` : "";
}
