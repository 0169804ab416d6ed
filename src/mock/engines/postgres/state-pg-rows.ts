// The tables of the state shared by replicas (`--state postgres://…`, state-pg.ts, decision SB5): SQLite's
// (state-db.ts) plus `versions`, in PostgreSQL, and the store's rows (store/persist.ts) read from rows fetched
// beforehand and written into statements buffered per workspace, run by the commit in that workspace's transaction.
//
//   records   (ws, coll, parent, key) → seq, value, extra, ver  a row per stored record
//   fields    (ws, name) → value, ver                           a row per other field of a workspace
//   entries   (owner, name, key) → value, id, ver               RowMaps' rows; owner '' for a part's; id keeps
//                                                               the order SQLite's rowid keeps (oldest first)
//   gone      (ws, kind, name, parent, key) → ver               a row deleted from records, fields or entries
//                                                               (kind: record, field, entry): a tombstone
//   parts     name → value                                      the other parts (keys, webhooks): their snapshot
//   versions  scope → v, floor                                  one per workspace (scope: its id), one for the
//                                                               parts (scope: ''); bumped by every commit
//   meta      key → value                                       the format's version
//
// `ver` is the version of the commit that last wrote the row (SB15): a replica whose memory holds version k of a
// workspace reads only what changed since (`changesSince`: rows and tombstones with ver > k) rather than the whole
// workspace again. Tombstones older than `floor` are pruned; memory older than the floor reads the workspace whole.
import type pg from "pg";
import type { EntryRow, FieldRow, RecordRow, StoreRows } from "../../core/store/persist.js";

/**
 * The schema's migrations, in order: migration i brings a database from version i to i + 1 (version 0: no tables).
 * Run once, by `avt-mock migrate --state URL` or by the first replica on an empty database (migrate.ts, SB22), never
 * by a replica's start on a database that has tables: DDL takes exclusive locks that live reads and writes wait on.
 */
export const MIGRATIONS: readonly string[] = [
  `
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
`,
  // 2: `ver` columns, `gone` and `versions.floor` (SB15).
  `
CREATE TABLE IF NOT EXISTS gone (ws TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, parent TEXT NOT NULL, key TEXT NOT NULL, ver BIGINT NOT NULL, PRIMARY KEY (ws, kind, name, parent, key));
ALTER TABLE records ADD COLUMN IF NOT EXISTS ver BIGINT NOT NULL DEFAULT 0;
ALTER TABLE fields ADD COLUMN IF NOT EXISTS ver BIGINT NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN IF NOT EXISTS ver BIGINT NOT NULL DEFAULT 0;
ALTER TABLE versions ADD COLUMN IF NOT EXISTS floor BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS records_ver ON records (ws, ver);
CREATE INDEX IF NOT EXISTS fields_ver ON fields (ws, ver);
CREATE INDEX IF NOT EXISTS entries_ver ON entries (owner, ver);
CREATE INDEX IF NOT EXISTS gone_ver ON gone (ws, ver);
`,
  // 3: the outbox of webhook deliveries (SB23, outbox.ts).
  `
CREATE TABLE IF NOT EXISTS outbox (
  id BIGSERIAL PRIMARY KEY, ws TEXT NOT NULL, hook TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL,
  type TEXT NOT NULL, body TEXT NOT NULL, ver BIGINT NOT NULL, claimed_until TIMESTAMPTZ
);
`,
  // 4: workspace leases (`--ownership`, SB29, leases.ts): one owner per workspace, `epoch` the fencing token.
  `
CREATE TABLE IF NOT EXISTS leases (ws TEXT PRIMARY KEY, owner TEXT NOT NULL, url TEXT NOT NULL, epoch BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
CREATE INDEX IF NOT EXISTS leases_owner ON leases (owner);
`,
];

/** The schema version this mock reads and writes: every migration run. */
export const PG_STATE_VERSION = String(MIGRATIONS.length);

/** Tombstones are kept for this many versions of their workspace (a replica further behind reads it whole). */
export const TOMBSTONE_VERSIONS = 256;

/** Every migration at once (tests that make a database from nothing). */
export const PG_SCHEMA = MIGRATIONS.join("");

/** The scope of the parts' version and lock. */
export const PARTS = "";

/**
 * The scope of the reset's epoch (its version: how many resets the database has seen) and lock (SB20): a reset holds
 * it exclusively, every commit shares it while it checks the epoch its memory was read in.
 */
export const RESET = "reset";

/** The reset's lock, shared by a commit (held to the end of the transaction, as a reset holds it alone). */
export function shareReset(c: Queryable): Promise<unknown> {
  return c.query("SELECT pg_advisory_xact_lock_shared(hashtext($1))", [`avt:${RESET}`]);
}

/** A connection or a pool: both answer `query`. */
export type Queryable = Pick<pg.PoolClient, "query">;

/**
 * A buffered write: its SQL takes `params` and then, as its last parameter, the version of the commit that runs it
 * (`run`), which it writes into the row's `ver` (or its tombstone's).
 */
export type Statement = [sql: string, params: unknown[]];

/** What a workspace's rows were when fetched. */
export interface Fetched {
  records: RecordRow[];
  fields: FieldRow[];
  entries: EntryRow[];
}

/** A row deleted since a version (a tombstone): `name` is a record's collection, a field's or an entry's name. */
export interface GoneRow {
  kind: "record" | "field" | "entry";
  name: string;
  parent: string;
  key: string;
}

/** What changed in a workspace since a version: the rows written since (each as a whole), and those deleted. */
export interface Changes extends Fetched {
  /** The workspace's version these changes bring memory to. */
  v: number;
  /** Tombstones older than this are pruned: memory older than it cannot be brought up by changes. */
  floor: number;
  /** The reset's epoch in the same snapshot (SB20). */
  epoch: number;
  gone: GoneRow[];
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

/**
 * Bumps a scope's version, in the transaction that writes it; returns the new one. Every TOMBSTONE_VERSIONS
 * versions, the scope's tombstones older than that many versions are pruned and its floor raised to match.
 */
export async function bump(c: Queryable, scope: string): Promise<number> {
  const r = await c.query<{ v: string }>("INSERT INTO versions (scope, v) VALUES ($1, 1) ON CONFLICT (scope) DO UPDATE SET v = versions.v + 1 RETURNING v", [scope]);
  const v = Number(r.rows[0]!.v);
  if (v % TOMBSTONE_VERSIONS === 0) {
    await c.query("WITH pruned AS (DELETE FROM gone WHERE ws = $1 AND ver <= $2) UPDATE versions SET floor = $2 WHERE scope = $1", [scope, v - TOMBSTONE_VERSIONS]);
  }
  return v;
}

/** Runs buffered writes in the transaction of the commit that brings their workspace to version `ver`. */
export async function run(c: Queryable, statements: readonly Statement[], ver: number): Promise<void> {
  for (const [sql, params] of statements) await c.query(sql, [...params, ver]);
}

/**
 * The workspace's version and what changed since version `since` (-1: every row, in the order SQLite gives them:
 * records by seq, entries oldest first): one statement, so under READ COMMITTED the version and the rows come from
 * one snapshot (rows of a commit after the version read are never taken for it).
 */
const CHANGES = `
SELECT 0 AS k, '' AS a, '' AS b, '' AS c, v AS n, floor::text AS value, '' AS extra FROM versions WHERE scope = $1
UNION ALL SELECT 1, coll, parent, key, seq, value, extra FROM records WHERE ws = $1 AND ver > $2
UNION ALL SELECT 2, name, '', '', 0, value, '' FROM fields WHERE ws = $1 AND ver > $2
UNION ALL SELECT 3, name, '', key, id, value, '' FROM entries WHERE owner = $1 AND ver > $2
UNION ALL SELECT 4, kind, name, parent, 0, key, '' FROM gone WHERE ws = $1 AND ver > $2
UNION ALL SELECT 5, '', '', '', v, '', '' FROM versions WHERE scope = '${RESET}'
ORDER BY k, n`;

export async function changesSince(c: Queryable, ws: string, since: number): Promise<Changes> {
  const r = await c.query<{ k: number; a: string; b: string; c: string; n: string; value: string; extra: string }>(CHANGES, [ws, since]);
  const out: Changes = { v: 0, floor: 0, epoch: 0, records: [], fields: [], entries: [], gone: [] };
  for (const row of r.rows) {
    if (row.k === 0) ((out.v = Number(row.n)), (out.floor = Number(row.value)));
    else if (row.k === 1) out.records.push({ ws, coll: row.a, parent: row.b, key: row.c, seq: Number(row.n), value: row.value, extra: row.extra });
    else if (row.k === 2) out.fields.push({ ws, name: row.a, value: row.value });
    else if (row.k === 3) out.entries.push({ name: row.a, key: row.c, value: row.value });
    else if (row.k === 5) out.epoch = Number(row.n);
    else out.gone.push({ kind: row.a as GoneRow["kind"], name: row.b, parent: row.c, key: row.value });
  }
  return out;
}

/** A deletion (`del`, taking `params`) and the tombstone it leaves, in one statement (its last parameter: the version). */
function deleting(del: string, params: unknown[], ws: string, gone: GoneRow): Statement {
  const n = params.length;
  const at = (i: number) => `$${n + i}`;
  const sql = `WITH d AS (${del}) INSERT INTO gone (ws, kind, name, parent, key, ver) VALUES (${[1, 2, 3, 4, 5, 6].map(at).join(", ")}) ON CONFLICT (ws, kind, name, parent, key) DO UPDATE SET ver = EXCLUDED.ver`;
  return [sql, [...params, ws, gone.kind, gone.name, gone.parent, gone.key]];
}

/** An entry set: it moves to the end (a new id) as SQLite's INSERT OR REPLACE moves it. */
export function putEntry(owner: string, name: string, key: string, value: string): Statement[] {
  return [["INSERT INTO entries (owner, name, key, value, ver) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (owner, name, key) DO UPDATE SET value = EXCLUDED.value, ver = EXCLUDED.ver, id = nextval('entries_id_seq')", [owner, name, key, value]]];
}

export function deleteEntry(owner: string, name: string, key: string): Statement {
  return deleting("DELETE FROM entries WHERE owner = $1 AND name = $2 AND key = $3", [owner, name, key], owner, { kind: "entry", name, parent: "", key });
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
    const sql = "INSERT INTO records (ws, coll, parent, key, seq, value, extra, ver) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (ws, coll, parent, key) DO UPDATE SET seq = EXCLUDED.seq, value = EXCLUDED.value, extra = EXCLUDED.extra, ver = EXCLUDED.ver";
    this.add(r.ws, [sql, [r.ws, r.coll, r.parent, r.key, r.seq, r.value, r.extra]]);
  }

  deleteRecord(ws: string, coll: string, parent: string, key: string): void {
    this.add(ws, deleting("DELETE FROM records WHERE ws = $1 AND coll = $2 AND parent = $3 AND key = $4", [ws, coll, parent, key], ws, { kind: "record", name: coll, parent, key }));
  }

  putField(r: FieldRow): void {
    this.add(r.ws, ["INSERT INTO fields (ws, name, value, ver) VALUES ($1, $2, $3, $4) ON CONFLICT (ws, name) DO UPDATE SET value = EXCLUDED.value, ver = EXCLUDED.ver", [r.ws, r.name, r.value]]);
  }

  deleteField(ws: string, name: string): void {
    this.add(ws, deleting("DELETE FROM fields WHERE ws = $1 AND name = $2", [ws, name], ws, { kind: "field", name, parent: "", key: "" }));
  }

  putEntry(ws: string, name: string, key: string, value: string): void {
    this.add(ws, ...putEntry(ws, name, key, value));
  }

  deleteEntry(ws: string, name: string, key: string): void {
    this.add(ws, deleteEntry(ws, name, key));
  }

  /** A statement of another table (the outbox's) in workspace `ws`'s next commit. */
  queue(ws: string, statement: Statement): void {
    this.add(ws, statement);
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
