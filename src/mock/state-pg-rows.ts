// The tables of the state shared by replicas (`--state postgres://…`, state-pg.ts, decision SB5): SQLite's
// (state-db.ts) plus `versions`, in PostgreSQL, and the store's rows (store/persist.ts) read from rows fetched
// beforehand and written into statements buffered per workspace, run by the commit in that workspace's transaction.
//
//   records   (ws, coll, parent, key) → seq, value, extra       a row per stored record
//   fields    (ws, name) → value                                a row per other field of a workspace
//   entries   (owner, name, key) → value, id                    RowMaps' rows; owner '' for a part's; id keeps
//                                                               the order SQLite's rowid keeps (oldest first)
//   parts     name → value                                      the other parts (keys, webhooks): their snapshot
//   versions  scope → v                                         one per workspace (scope: its id), one for the
//                                                               parts (scope: ''); bumped by every commit
//   meta      key → value                                       the format's version
import type pg from "pg";
import type { EntryRow, FieldRow, RecordRow, StoreRows } from "./store/persist.js";

export const PG_STATE_VERSION = "1";

export const PG_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
  ws TEXT NOT NULL, coll TEXT NOT NULL, parent TEXT NOT NULL, key TEXT NOT NULL,
  seq BIGINT NOT NULL, value TEXT NOT NULL, extra TEXT NOT NULL,
  PRIMARY KEY (ws, coll, parent, key)
);
CREATE TABLE IF NOT EXISTS fields (ws TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (ws, name));
CREATE TABLE IF NOT EXISTS entries (id BIGSERIAL, owner TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (owner, name, key));
CREATE TABLE IF NOT EXISTS versions (scope TEXT PRIMARY KEY, v BIGINT NOT NULL);
`;

/** The scope of the parts' version and lock. */
export const PARTS = "";

/** A connection or a pool: both answer `query`. */
export type Queryable = Pick<pg.PoolClient, "query">;

export type Statement = [sql: string, params: unknown[]];

/** What a workspace's rows were when fetched. */
export interface Fetched {
  records: RecordRow[];
  fields: FieldRow[];
  entries: EntryRow[];
}

/** The advisory lock of a scope (a workspace, or PARTS), held to the end of the transaction. */
export function lockScope(c: Queryable, scope: string): Promise<unknown> {
  return c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`avt:${scope}`]);
}

/** Takes a scope's advisory lock if it is free (to the end of the transaction); false when another session holds it. */
export async function tryLockScope(c: Queryable, scope: string): Promise<boolean> {
  const r = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok", [`avt:${scope}`]);
  return r.rows[0]!.ok === true;
}

/** The version of a scope: 0 for one never written. */
export async function versionOf(c: Queryable, scope: string): Promise<number> {
  const r = await c.query<{ v: string }>("SELECT v FROM versions WHERE scope = $1", [scope]);
  return r.rows[0] ? Number(r.rows[0].v) : 0;
}

/** Bumps a scope's version, in the transaction that writes it; returns the new one. */
export async function bump(c: Queryable, scope: string): Promise<number> {
  const r = await c.query<{ v: string }>("INSERT INTO versions (scope, v) VALUES ($1, 1) ON CONFLICT (scope) DO UPDATE SET v = versions.v + 1 RETURNING v", [scope]);
  return Number(r.rows[0]!.v);
}

export async function run(c: Queryable, statements: readonly Statement[]): Promise<void> {
  for (const [sql, params] of statements) await c.query(sql, params);
}

/** A workspace's rows, in the order SQLite gives them (records by seq, entries oldest first). */
export async function fetchWorkspace(c: Queryable, ws: string): Promise<Fetched> {
  const [records, fields, entries] = await Promise.all([
    c.query<RecordRow & { seq: string }>("SELECT ws, coll, parent, key, seq, value, extra FROM records WHERE ws = $1 ORDER BY seq", [ws]),
    c.query<FieldRow>("SELECT ws, name, value FROM fields WHERE ws = $1", [ws]),
    c.query<EntryRow>("SELECT name, key, value FROM entries WHERE owner = $1 ORDER BY id", [ws]),
  ]);
  return { records: records.rows.map((r) => ({ ...r, seq: Number(r.seq) })), fields: fields.rows, entries: entries.rows };
}

/** An entry set: deleted and inserted again, so it moves to the end as SQLite's INSERT OR REPLACE moves it. */
export function putEntry(owner: string, name: string, key: string, value: string): Statement[] {
  return [
    ["DELETE FROM entries WHERE owner = $1 AND name = $2 AND key = $3", [owner, name, key]],
    ["INSERT INTO entries (owner, name, key, value) VALUES ($1, $2, $3, $4)", [owner, name, key, value]],
  ];
}

export function deleteEntry(owner: string, name: string, key: string): Statement {
  return ["DELETE FROM entries WHERE owner = $1 AND name = $2 AND key = $3", [owner, name, key]];
}

/**
 * The store's rows (StoreRows): reads come from `fetched` (state-pg.ts fetches a workspace before the store loads
 * it; a workspace read without being fetched throws rather than being taken for empty and seeded over what the
 * database holds); writes are buffered per workspace until the commit takes them (`take`).
 */
export class PgRows implements StoreRows {
  readonly fetched = new Map<string, Fetched>();
  private writes = new Map<string, Statement[]>();
  private cleared = false;

  private got(ws: string): Fetched {
    const f = this.fetched.get(ws);
    if (!f) throw new Error(`workspace ${ws} was read before it was fetched from PostgreSQL`);
    return f;
  }

  private add(ws: string, ...s: Statement[]): void {
    const list = this.writes.get(ws);
    if (list) list.push(...s);
    else this.writes.set(ws, s);
  }

  records = (ws: string) => this.got(ws).records;
  fields = (ws: string) => this.got(ws).fields;
  entries = (ws: string) => this.got(ws).entries;

  putRecord(r: RecordRow): void {
    const sql = "INSERT INTO records (ws, coll, parent, key, seq, value, extra) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (ws, coll, parent, key) DO UPDATE SET seq = EXCLUDED.seq, value = EXCLUDED.value, extra = EXCLUDED.extra";
    this.add(r.ws, [sql, [r.ws, r.coll, r.parent, r.key, r.seq, r.value, r.extra]]);
  }

  deleteRecord(ws: string, coll: string, parent: string, key: string): void {
    this.add(ws, ["DELETE FROM records WHERE ws = $1 AND coll = $2 AND parent = $3 AND key = $4", [ws, coll, parent, key]]);
  }

  putField(r: FieldRow): void {
    this.add(r.ws, ["INSERT INTO fields (ws, name, value) VALUES ($1, $2, $3) ON CONFLICT (ws, name) DO UPDATE SET value = EXCLUDED.value", [r.ws, r.name, r.value]]);
  }

  deleteField(ws: string, name: string): void {
    this.add(ws, ["DELETE FROM fields WHERE ws = $1 AND name = $2", [ws, name]]);
  }

  putEntry(ws: string, name: string, key: string, value: string): void {
    this.add(ws, ...putEntry(ws, name, key, value));
  }

  deleteEntry(ws: string, name: string, key: string): void {
    this.add(ws, deleteEntry(ws, name, key));
  }

  /** POST /__mock/reset: every workspace forgotten (what was buffered before with it). */
  clear(): void {
    this.cleared = true;
    this.writes.clear();
  }

  /** What the store wrote since the last call: whether it cleared everything first, and the statements per workspace. */
  take(): { cleared: boolean; writes: Map<string, Statement[]> } {
    const out = { cleared: this.cleared, writes: this.writes };
    this.cleared = false;
    this.writes = new Map();
    return out;
  }
}
