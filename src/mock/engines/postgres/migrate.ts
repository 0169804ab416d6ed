// The schema of the state shared by replicas, migrated once (decision SB22): by `avt-mock migrate --state URL`, or by
// the first replica on an empty database. A replica's start only reads the schema's version: it never runs DDL on
// tables other replicas are reading and writing (an ALTER TABLE waits for every live transaction on its table, and
// every new one waits behind it: creates stalled for seconds, and one start deadlocked with live reads). A database
// on another version refuses the start, naming both versions and what to do.
import type pg from "pg";
import { optionalPeer } from "../optional-peer.js";
import { StateFileError } from "../sqlite/state-file.js";
import { lockScope, MIGRATIONS, PG_STATE_VERSION, type Queryable } from "./state-pg-rows.js";

/** How long a migration waits for a lock live sessions hold before it gives up: it stalls them no longer than this. */
export const MIGRATE_LOCK_TIMEOUT_MS = 5_000;

/**
 * The state database cannot be used as it is, for the reason named (a schema of another version, a lock a migration
 * could not get, a statement PostgreSQL refused with its SQLSTATE): not a bad state *file*.
 */
export class StateDatabaseError extends StateFileError {}

/** The schema's version in the database: 0 when it has no tables yet. */
export async function schemaVersion(c: Queryable): Promise<number> {
  const t = await c.query<{ t: boolean }>("SELECT to_regclass('meta') IS NOT NULL AS t");
  if (!t.rows[0]!.t) return 0;
  const v = (await c.query<{ value: string }>("SELECT value FROM meta WHERE key = 'version'")).rows[0]?.value;
  // A meta table without a version row: a database of version 1 made before the row was written.
  return v === undefined ? 1 : Number(v);
}

const CURRENT = Number(PG_STATE_VERSION);

function newer(v: number): StateDatabaseError {
  return new StateDatabaseError(`the database's schema is version ${v}, newer than this mock's version ${CURRENT}: a newer mock migrated it; run that version (or start this one on another database)`);
}

/** A PostgreSQL error named by its own message and SQLSTATE (`deadlock detected (SQLSTATE 40P01)`). */
export function pgCause(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  return `${(e as Error).message}${typeof code === "string" ? ` (SQLSTATE ${code})` : ""}`;
}

/**
 * Brings the database to this mock's schema version, in one transaction under the schema's advisory lock (replicas
 * and commands migrating at once take turns), each lock waited for at most MIGRATE_LOCK_TIMEOUT_MS. Returns the
 * versions before and after (equal: nothing to do, and nothing was run).
 */
export async function migrate(c: pg.ClientBase): Promise<{ from: number; to: number }> {
  try {
    await c.query("BEGIN");
    await c.query(`SET LOCAL lock_timeout = ${MIGRATE_LOCK_TIMEOUT_MS}`);
    await lockScope(c, "schema");
    const from = await schemaVersion(c);
    if (from > CURRENT) throw newer(from);
    for (let v = from; v < CURRENT; v++) await c.query(MIGRATIONS[v]!);
    if (from !== CURRENT) await c.query("INSERT INTO meta (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [PG_STATE_VERSION]);
    await c.query("COMMIT");
    return { from, to: CURRENT };
  } catch (e) {
    await c.query("ROLLBACK").catch(() => {});
    if (e instanceof StateDatabaseError) throw e;
    if ((e as { code?: unknown }).code === "55P03") {
      throw new StateDatabaseError(`the migration waited ${MIGRATE_LOCK_TIMEOUT_MS} ms for a table's lock that live sessions hold and gave up, changing nothing (${pgCause(e)}); run it again when the sandbox is quieter`);
    }
    throw new StateDatabaseError(`the migration failed, changing nothing: ${pgCause(e)}`);
  }
}

/**
 * At a replica's start: the schema's version is read, and only an empty database is migrated (its tables are not
 * live yet). Any other version than this mock's refuses the start, naming both.
 */
export async function checkSchema(pool: pg.Pool): Promise<void> {
  const v = await schemaVersion(pool);
  if (v === CURRENT) return;
  if (v > CURRENT) throw newer(v);
  if (v === 0) {
    const c = await pool.connect();
    try {
      await migrate(c);
    } finally {
      c.release();
    }
    return;
  }
  throw new StateDatabaseError(
    `the database's schema is version ${v} and this mock needs version ${CURRENT}: migrate it once with \`avt-mock migrate --state URL\` (in this repository: \`npm start -- migrate --state URL\`), then start the replicas; replicas never change the schema of a database in use`,
  );
}

/** `avt-mock migrate`: connects to `url`, migrates, disconnects. pg is loaded as the optional peer it is. */
export async function migrateDatabase(url: string): Promise<{ from: number; to: number }> {
  const { Client } = optionalPeer<typeof pg>("pg", "avt-mock migrate reaches PostgreSQL", (m) => new StateDatabaseError(m));
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    return await migrate(client);
  } finally {
    await client.end().catch(() => {});
  }
}
