// The state database (`--state FILE`, MOCK_STATE_FILE): what the mock keeps between requests, in SQLite
// (better-sqlite3, decisions DB1-DB6), so it survives a restart and a crash.
//
//   records  a row per stored record (store/persist.ts): written when it changes, read a workspace at a time
//   fields   a row per other field of a workspace (`seq`, `singletons`, what a feature adds), as JSON
//   parts    a row per other part of the state (keys, webhooks, …): its snapshot(), as JSON, written when it
//            differs from the last one written
//   entries  a row per key of state that grows with history (row-map.ts, decision DB11): a workspace's remembered
//            Idempotency-Key answers (owner: the workspace), a part's RowMaps such as OAuth grants (owner: '',
//            name: part/map); written per key set or deleted, so a write's cost does not grow with what is kept
//   meta     the format's version
//
// Every change a request makes is committed (one synchronous transaction, WAL) before its answer is sent
// (StateRegistry.commit, serve.ts); changes made by timers are committed when they happen. At start every record
// is checked against the contract and a bad one refuses the start, naming it. A JSON state file of earlier
// versions given as FILE is read once and migrated (state-file.ts). Mode 0600: it holds secrets.
import fs from "node:fs";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { Contract } from "../../core/contract/contract-build.js";
import { optionalPeer } from "../optional-peer.js";
import { StateFile, StateFileError } from "./state-file.js";
import { checkWritable, lockState, type StateLock } from "./state-lock.js";
import type { StateRegistry } from "../../core/state/state-registry.js";
import { hasRows, type HasRows } from "../../core/state/row-map.js";
import type { MockState } from "../../core/state/state.js";
import { parseStored, StoredRecordError, type EntryRow, type FieldRow, type RecordRow, type StorePersistence, type StoreRows } from "../../core/store/persist.js";
import type { Store } from "../../core/store/store.js";

type Database = BetterSqlite3.Database;

/** 2: `entries` (DB11). A database of version 1 is read and upgraded in place (its RowMap fields moved as written). */
export const STATE_DB_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
  ws TEXT NOT NULL, coll TEXT NOT NULL, parent TEXT NOT NULL, key TEXT NOT NULL,
  seq INTEGER NOT NULL, value TEXT NOT NULL, extra TEXT NOT NULL,
  PRIMARY KEY (ws, coll, parent, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fields (ws TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (ws, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries (owner TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, UNIQUE (owner, name, key));
`;

const SQLITE_HEADER = "SQLite format 3\u0000";

export interface StateDbOptions {
  contract: Contract;
  /** Told of what happens once (a migration) and of writes that failed outside a request. */
  log?: (line: string) => void;
}

/** better-sqlite3 is a native addon: loaded with `require` when a state file is asked for, never bundled. */
function sqlite(): typeof BetterSqlite3 {
  return optionalPeer<typeof BetterSqlite3>("better-sqlite3", "--state keeps the mock's state in SQLite", (m) => new StateFileError(m));
}

/** Opens (creating it, mode 0600, when missing) a database with the schema, in WAL mode. */
function openDatabase(file: string): Database {
  const Sqlite = sqlite(); // first: without it, no file is created
  if (!fs.existsSync(path.dirname(path.resolve(file)))) throw new StateFileError(`${file}: its folder does not exist`);
  // Opened (created when missing, mode 0600) with O_NOFOLLOW: a link at the name, dangling or not, is refused rather
  // than followed (SQLite opens by name and would create its target). An empty file is about to become the
  // database, secrets and all: made 0600 whatever mode it had (issue 29: a pre-existing empty file stayed 0644).
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EISDIR") throw new StateFileError(`${file}: not a state database this mock can read (a folder)`);
    if (code === "ELOOP" || code === "EMLINK") throw new StateFileError(`${file} is a symbolic link: give the database's own path (a planted link is never followed)`);
    throw new StateFileError(`${file}: cannot create the state database (${(e as Error).message})`);
  }
  try {
    if (fs.fstatSync(fd).size === 0) fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  // SQLite opens its log and shared-memory files beside the database by name, following links: refuse a planted one.
  for (const side of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (fs.lstatSync(side, { throwIfNoEntry: false })?.isSymbolicLink()) throw new StateFileError(`${side} is a symbolic link: remove it (the state database's own files are never links)`);
  }
  let db: Database | null = null;
  try {
    db = new Sqlite(file);
    db.pragma("journal_mode = WAL");
    // NORMAL in WAL: a commit is in the log file before the answer, which a killed process cannot undo; only a
    // power cut may lose the last commits (decision DB2).
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    const version = (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined)?.value;
    if (version !== undefined && version !== "1" && version !== String(STATE_DB_VERSION)) throw new Error(`format version ${version}; this mock reads versions 1 and ${STATE_DB_VERSION}`);
    if (version !== String(STATE_DB_VERSION)) db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)").run(String(STATE_DB_VERSION));
    return db;
  } catch (e) {
    db?.close();
    throw new StateFileError(`${file}: not a state database this mock can read (${(e as Error).message})`);
  }
}

/** The store's rows in the database's tables, through statements prepared once. */
function storeRows(db: Database): StoreRows {
  const records = db.prepare("SELECT ws, coll, parent, key, seq, value, extra FROM records WHERE ws = ? ORDER BY seq");
  const fields = db.prepare("SELECT ws, name, value FROM fields WHERE ws = ?");
  const putRecord = db.prepare("INSERT OR REPLACE INTO records (ws, coll, parent, key, seq, value, extra) VALUES (@ws, @coll, @parent, @key, @seq, @value, @extra)");
  const deleteRecord = db.prepare("DELETE FROM records WHERE ws = ? AND coll = ? AND parent = ? AND key = ?");
  const putField = db.prepare("INSERT OR REPLACE INTO fields (ws, name, value) VALUES (@ws, @name, @value)");
  const deleteField = db.prepare("DELETE FROM fields WHERE ws = ? AND name = ?");
  const entries = entryRows(db);
  return {
    records: (ws) => records.iterate(ws) as Iterable<RecordRow>,
    fields: (ws) => fields.iterate(ws) as Iterable<FieldRow>,
    putRecord: (row) => void putRecord.run(row),
    deleteRecord: (ws, coll, parent, key) => void deleteRecord.run(ws, coll, parent, key),
    putField: (row) => void putField.run(row),
    deleteField: (ws, name) => void deleteField.run(ws, name),
    entries: (ws) => entries.of(ws),
    putEntry: entries.put,
    deleteEntry: entries.delete,
    clear: () => void db.exec("DELETE FROM records; DELETE FROM fields; DELETE FROM entries WHERE owner != '';"),
  };
}

/** The `entries` table: RowMaps' rows by owner (a workspace, or '' for a part), oldest first (rowid order). */
function entryRows(db: Database) {
  const of = db.prepare("SELECT name, key, value FROM entries WHERE owner = ? ORDER BY rowid");
  const named = db.prepare("SELECT key, value FROM entries WHERE owner = ? AND name = ? ORDER BY rowid");
  const put = db.prepare("INSERT OR REPLACE INTO entries (owner, name, key, value) VALUES (?, ?, ?, ?)");
  const del = db.prepare("DELETE FROM entries WHERE owner = ? AND name = ? AND key = ?");
  return {
    of: (owner: string) => of.iterate(owner) as Iterable<EntryRow>,
    named: (owner: string, name: string) => named.all(owner, name) as Array<{ key: string; value: string }>,
    put: (owner: string, name: string, key: string, value: string) => void put.run(owner, name, key, value),
    delete: (owner: string, name: string, key: string) => void del.run(owner, name, key),
  };
}

/** Is `file` a JSON state file of earlier versions (anything but an empty file or a SQLite database)? */
function isJsonStateFile(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return n > 0 && head.toString("latin1", 0, n) !== SQLITE_HEADER.slice(0, n);
  } catch {
    return false; // a folder, say: openDatabase says what is wrong with it
  } finally {
    fs.closeSync(fd);
  }
}

export class StateDb {
  /** The JSON last written of each part but the store's. */
  private readonly written = new Map<string, string>();
  private readonly flushTx: () => Array<() => void>;
  private readonly entries: ReturnType<typeof entryRows>;
  /** Parts with RowMaps still read from a `parts` row (a migrated JSON file, a database of version 1): deleted with the next write. */
  private readonly legacy = new Set<string>();
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly db: Database,
    private readonly registry: StateRegistry,
    private readonly store: Store | null,
    private readonly opts: StateDbOptions,
    private readonly lock: StateLock,
  ) {
    const putPart = db.prepare("INSERT OR REPLACE INTO parts (name, value) VALUES (?, ?)");
    const deletePart = db.prepare("DELETE FROM parts WHERE name = ?");
    this.entries = entryRows(db);
    // What the transaction wrote is marked written only once it has committed (the marks it returns, run by
    // flush): a transaction that fails leaves everything to be written again (decision DB9).
    this.flushTx = db.transaction(() => {
      const marks = [this.store?.persist() ?? (() => {})];
      for (const part of this.others()) {
        if (hasRows(part)) {
          marks.push(this.writeRows(part));
          if (this.legacy.delete(part.name)) deletePart.run(part.name);
          continue;
        }
        const text = JSON.stringify(part.snapshot());
        if (this.written.get(part.name) === text) continue;
        putPart.run(part.name, text);
        marks.push(() => this.written.set(part.name, text));
      }
      return marks;
    });
  }

  /**
   * Opens `file` (a JSON state file is migrated first), restores every part from it and checks every record:
   * throws StateFileError naming what cannot be read. From then on the state is written as it changes.
   */
  static open(file: string, registry: StateRegistry, opts: StateDbOptions): StateDb {
    const store = (registry.get("store") as Store | undefined) ?? null;
    if (!fs.existsSync(path.dirname(path.resolve(file)))) throw new StateFileError(`${file}: its folder does not exist`);
    checkWritable(file);
    const lock = lockState(file);
    let db: Database | null = null;
    let created = false;
    try {
      removeLeftovers(file);
      if (isJsonStateFile(file)) migrate(file, registry, store, opts);
      created = ensureFile(file);
      lock.byIdentity(); // before SQLite opens it: a hard link to a database in use is refused here
      db = openDatabase(file);
      const state = new StateDb(file, db, registry, store, opts, lock);
      state.load();
      registry.onChange(() => state.flushLogged());
      registry.onCommit(() => state.flush());
      registry.onRollback(() => state.rollback());
      return state;
    } catch (e) {
      db?.close();
      // A file made here for a database that never opened (no better-sqlite3, a refused lock) is not left behind.
      if (created && !db) fs.rmSync(file, { force: true });
      lock.release();
      throw e;
    }
  }

  /** Writes the rows a part's RowMaps changed; returns what marks them written, to run after the commit. */
  private writeRows(part: MockState & HasRows): () => void {
    const all = Object.entries(part.rows).map(([table, map]) => [`${part.name}/${table}`, map, map.changes()] as const);
    for (const [name, , changes] of all) {
      for (const [key, json] of changes) {
        if (json === null) this.entries.delete("", name, key);
        else this.entries.put("", name, key, json);
      }
    }
    return () => {
      for (const [, map, changes] of all) map.written(changes);
    };
  }

  /** Reads a part's RowMaps back from their rows; a bad row throws naming the file, the part and the key. */
  private readRows(part: MockState & HasRows): void {
    for (const [table, map] of Object.entries(part.rows)) {
      try {
        map.fill(this.entries.named("", `${part.name}/${table}`), `part ${part.name}, ${table}`);
      } catch (e) {
        throw new StateFileError(`${this.file}: ${(e as Error).message}`);
      }
    }
  }

  /** Every registered part but the store, which keeps rows of its own. */
  private others(): MockState[] {
    return this.registry.all.filter((p) => p !== (this.store as MockState | null));
  }

  private load(): void {
    const rows = this.db.prepare("SELECT name, value FROM parts").all() as Array<{ name: string; value: string }>;
    for (const { name, value } of rows) {
      const part = this.registry.get(name);
      if (!part || part === (this.store as MockState | null)) continue; // a part this gateway runs without: left as it is
      const fail = (why: string): never => {
        throw new StateFileError(`${this.file}: part ${name}: ${why}`);
      };
      const data = parseStored(value, fail);
      try {
        part.restore(data);
      } catch (e) {
        fail((e as Error).message);
      }
      if (hasRows(part)) this.legacy.add(name);
      else this.written.set(name, value);
    }
    for (const part of this.others()) if (hasRows(part) && !this.legacy.has(part.name)) this.readRows(part);
    if (this.store) checkRecords(this.file, this.db, this.store.keepIn(storeRows(this.db), () => this.flush()));
  }

  /** Writes every change not yet written, in one transaction. Throws when it cannot. */
  flush(): void {
    if (this.closed) return;
    for (const mark of this.flushTx()) mark();
  }

  /**
   * A commit failed: memory is put back as the database holds it. The store drops the workspaces it changed (read
   * back when next used); every other part is restored from what was last written, or reset to its start when
   * nothing of it was ever written (then the database holds nothing of it either).
   */
  rollback(): void {
    this.store?.rollback();
    for (const part of this.others()) {
      const last = this.written.get(part.name);
      try {
        if (hasRows(part) && !this.legacy.has(part.name)) this.readRows(part);
        else if (hasRows(part)) part.restore(JSON.parse(this.db.prepare("SELECT value FROM parts WHERE name = ?").pluck().get(part.name) as string));
        else if (last === undefined) part.reset();
        else part.restore(JSON.parse(last));
      } catch (e) {
        this.opts.log?.(`state ${this.file}: part ${part.name} not put back after a failed commit: ${(e as Error).message}`);
      }
    }
  }

  /** flush(), for changes made outside a request (a timer): a failure is logged, and written with the next change. */
  private flushLogged(): void {
    try {
      this.flush();
    } catch (e) {
      this.opts.log?.(`state ${this.file} not written: ${(e as Error).message}`);
    }
  }

  /** Writes what is left and closes the database (its WAL is folded into the file). */
  close(): void {
    if (this.closed) return;
    this.flushLogged();
    this.closed = true;
    this.db.close();
    this.lock.release();
  }
}

/** Every stored record checked against the contract (store/persist.ts); the first bad one refuses the start. */
function checkRecords(file: string, db: Database, persistence: StorePersistence): void {
  for (const row of db.prepare("SELECT ws, coll, parent, key, seq, value, extra FROM records").iterate() as Iterable<RecordRow>) {
    try {
      persistence.check(row);
    } catch (e) {
      if (e instanceof StoredRecordError) throw new StateFileError(`${file}: ${e.message}`);
      throw e;
    }
  }
}

/**
 * Removes what a migration killed midway left (`FILE.migrating-<pid>` and its log files): with the lock held no
 * other process can be migrating this file, so any such file is a leftover (issue 29: they were never cleaned).
 * A link is removed as a link, never followed.
 */
/** Creates the database file (0600, never through a link) so it has the inode its identity lock is named by. */
/** Creates the state database's file when it is missing (true: created here), or checks it can be opened. */
function ensureFile(file: string): boolean {
  const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  try {
    fs.closeSync(fs.openSync(file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new StateFileError(`${file}: cannot open the state database (${(e as Error).message})`);
  }
  try {
    fs.closeSync(fs.openSync(file, O_RDWR | O_NOFOLLOW));
    return false;
  } catch (e) {
    throw new StateFileError(`${file}: cannot open the state database (${(e as Error).message})`);
  }
}

function removeLeftovers(file: string): void {
  const dir = path.dirname(path.resolve(file));
  const prefix = `${path.basename(file)}.migrating-`;
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(prefix) && /^\d+(-wal|-shm|-journal)?$/.test(name.slice(prefix.length))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * A JSON state file of earlier versions, read once (state-file.ts: a bad one refuses the start, naming where) and
 * written into a new database beside it, checked, then renamed over it. The JSON is kept as `FILE.json-v1`.
 */
function migrate(file: string, registry: StateRegistry, store: Store | null, opts: StateDbOptions): void {
  const json = new StateFile(file, registry);
  json.load();
  const tmp = `${file}.migrating-${process.pid}`;
  fs.rmSync(tmp, { force: true }); // a leftover of a migration that died; `wx` below refuses anything planted after
  const db = openDatabase(tmp);
  try {
    const put = db.prepare("INSERT OR REPLACE INTO parts (name, value) VALUES (?, ?)");
    db.transaction(() => {
      for (const [name, value] of Object.entries(json.others)) put.run(name, JSON.stringify(value));
      for (const part of registry.all) if (part !== (store as MockState | null)) put.run(part.name, JSON.stringify(part.snapshot()));
      if (store) checkRecords(file, db, store.keepIn(storeRows(db), () => {}));
    })();
    db.close();
  } catch (e) {
    if (db.open) db.close();
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
    throw e;
  }
  const kept = keepCopy(file);
  fs.renameSync(tmp, file);
  opts.log?.(`state file ${file} migrated from JSON to a SQLite database; the JSON is kept as ${kept}`);
}

/** Copies the JSON to `FILE.json-v1` (a new name if that is taken: never over an existing file or through a link). */
function keepCopy(file: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${file}.json-v1` : `${file}.json-v1.${n}`;
    try {
      fs.copyFileSync(file, name, fs.constants.COPYFILE_EXCL);
      return name;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || n > 100) throw e;
    }
  }
}
