// Workspace ownership (`--ownership`, issue 44, decision SB29): each workspace is owned by one replica at a time,
// under a lease in PostgreSQL (`leases`, schema version 4). The owner keeps the workspace in memory and answers its
// requests from there; it only appends to the database, every write fenced by the lease's epoch in the same
// statement, so a replica that lost its lease cannot write. Other replicas forward the workspace's requests to the
// owner's URL (homes/node/forward.ts). An owner that dies stops renewing; its leases expire and the next replica a
// request of the workspace reaches takes them (the epoch goes up: the fencing token) and reads the workspace whole.
import crypto from "node:crypto";
import type pg from "pg";
import type { Statement } from "./state-pg-rows.js";

/** How long a lease holds without renewal, s: what an owner's death costs its workspaces' clients at most. */
export const LEASE_SECONDS = 5;
/** How often an owner renews all its leases (one statement), ms. */
export const RENEW_MS = 1000;

/**
 * Takes workspace $1's lease for owner $2 at URL $3 when it is free or expired (one statement), and says who holds it
 * otherwise: `epoch` is set only when this replica took it. Taken from another owner, the epoch goes up (what
 * memory read under the old one is no longer written); taken again by its own owner (its renewal ran late), it stays.
 */
const ACQUIRE = `
WITH taken AS (
  INSERT INTO leases (ws, owner, url, epoch, expires_at) VALUES ($1, $2, $3, 1, now() + make_interval(secs => $4))
  ON CONFLICT (ws) DO UPDATE SET owner = EXCLUDED.owner, url = EXCLUDED.url, epoch = CASE WHEN leases.owner = EXCLUDED.owner THEN leases.epoch ELSE leases.epoch + 1 END, expires_at = EXCLUDED.expires_at
  WHERE leases.expires_at < now() OR leases.owner = EXCLUDED.owner
  RETURNING epoch, owner, url
)
SELECT epoch::text AS epoch, owner, url FROM taken
UNION ALL SELECT NULL, owner, url FROM leases WHERE ws = $1 AND NOT EXISTS (SELECT 1 FROM taken)`;

const RENEW = "UPDATE leases SET expires_at = now() + make_interval(secs => $2) WHERE owner = $1 RETURNING ws, epoch::text AS epoch";

export type Holder = { mine: true; epoch: number } | { mine: false; url: string };

export class Leases {
  /** This replica's name in `leases.owner`: new at every start. */
  readonly id = crypto.randomUUID();
  /** The URL other replicas forward to (the gateway's, once it listens). */
  url = "";
  /** The leases held: workspace → epoch, and when the last renewal said so (ms, this process's monotonic clock). */
  private readonly held = new Map<string, { epoch: number; until: number }>();
  /** Who else holds a workspace, as last asked: forwarded there until `until`. */
  private readonly others = new Map<string, { url: string; until: number }>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly pool: pg.Pool,
    /** A lease this replica held is gone (expired and taken, or never renewed): its workspace leaves memory. */
    private readonly lost: (ws: string) => void,
  ) {
    this.timer = setInterval(() => void this.renew(), RENEW_MS);
    this.timer.unref();
  }

  /** The epoch of workspace `ws`'s lease when this replica holds it (and has renewed it recently enough to be sure). */
  epoch(ws: string): number | null {
    const h = this.held.get(ws);
    return h && h.until > performance.now() ? h.epoch : null;
  }

  /** Who holds workspace `ws`'s lease, taking it when free: no statement while this replica holds it or knows who does. */
  async holder(ws: string): Promise<Holder> {
    const epoch = this.epoch(ws);
    if (epoch !== null) return { mine: true, epoch };
    const other = this.others.get(ws);
    if (other && other.until > performance.now()) return { mine: false, url: other.url };
    const since = performance.now();
    const r = await this.pool.query<{ epoch: string | null; owner: string; url: string }>(ACQUIRE, [ws, this.id, this.url, LEASE_SECONDS]);
    const row = r.rows[0];
    if (row?.epoch != null) {
      this.held.set(ws, { epoch: Number(row.epoch), until: since + (LEASE_SECONDS * 1000) / 2 });
      this.others.delete(ws);
      return { mine: true, epoch: Number(row.epoch) };
    }
    if (!row) return this.holder(ws); // released between the two reads: ask again
    this.others.set(ws, { url: row.url, until: performance.now() + (LEASE_SECONDS * 1000) / 2 });
    return { mine: false, url: row.url };
  }

  /** The owner at `url` did not answer: asked again next time (its lease may have expired by then). */
  forget(ws: string): void {
    this.others.delete(ws);
  }

  /** Every lease of this replica renewed in one statement; one not returned is lost. */
  private async renew(): Promise<void> {
    if (!this.held.size) return;
    const since = performance.now();
    let rows: Array<{ ws: string; epoch: string }>;
    try {
      rows = (await this.pool.query<{ ws: string; epoch: string }>(RENEW, [this.id, LEASE_SECONDS])).rows;
    } catch {
      return; // the database is lost: the leases run out locally (epoch() says null) and are asked for again
    }
    const kept = new Map(rows.map((r) => [r.ws, Number(r.epoch)]));
    for (const [ws, h] of this.held) {
      if (kept.get(ws) === h.epoch) h.until = since + (LEASE_SECONDS * 1000) / 2;
      else this.drop(ws);
    }
  }

  /** A lease found lost (renewal, or a fenced write that wrote nothing). */
  drop(ws: string): void {
    if (!this.held.delete(ws)) return;
    this.lost(ws);
  }

  /** Draining: every lease given up at once, so other replicas take the workspaces without waiting for expiry. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    this.held.clear();
    await this.pool.query("DELETE FROM leases WHERE owner = $1", [this.id]).catch(() => {});
  }
}

/** How many of a statement's first parameters name the row it writes (records, fields, entries), by its table. */
const KEY_PARAMS: ReadonlyArray<[RegExp, number]> = [
  [/^INSERT INTO records /, 4],
  [/^INSERT INTO fields /, 2],
  [/^INSERT INTO entries /, 3],
  [/^INSERT INTO outbox /, 0],
];
const DELETING = /^WITH d AS \((DELETE FROM (records|fields|entries) [^)]*)\) INSERT INTO gone /;

/** `sql`'s placeholders $1… moved up by `by`. */
function shift(sql: string, by: number): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
}

/**
 * A workspace's buffered writes as ONE statement fenced by its lease (`f`: the lease row, locked FOR SHARE, only
 * while this replica's epoch is still the lease's): every write selects from `f`, so none happens once another
 * replica has taken the lease; `ok` is 1 when written. Null when the writes cannot share one statement (two of them
 * touch the same row, or one of a shape not known here): the caller runs them in a fenced transaction instead.
 * Tombstones (`gone`) are left out: nobody catches up from them under ownership; a new owner reads the workspace whole.
 */
export function fencedWrite(ws: string, owner: string, epoch: number, statements: readonly Statement[], ver: number): Statement | null {
  const parts: string[] = [];
  const params: unknown[] = [ws, owner, epoch];
  const rows = new Set<string>();
  for (const [sql, p] of statements) {
    const del = DELETING.exec(sql);
    const known = KEY_PARAMS.find(([re]) => re.test(sql));
    if (!del && !known) return null;
    const n = del ? p.length - 5 : known![1];
    if (n > 0) {
      const row = `${del ? del[2] : /^INSERT INTO (\w+)/.exec(sql)![1]}:${JSON.stringify(p.slice(0, n))}`;
      if (rows.has(row)) return null;
      rows.add(row);
    }
    const at = params.length;
    if (del) {
      params.push(...p.slice(0, n));
      parts.push(`${shift(del[1]!, at)} AND EXISTS (SELECT 1 FROM f)`);
      continue;
    }
    params.push(...p, ver);
    const values = /VALUES \(([^)]*)\)/.exec(sql)!;
    parts.push(shift(sql.replace(values[0], `SELECT ${values[1]} FROM f WHERE true`), at));
  }
  const ctes = parts.map((s, i) => `, w${i} AS (${s})`).join("");
  return [`WITH f AS (SELECT 1 FROM leases WHERE ws = $1 AND owner = $2 AND epoch = $3 FOR SHARE)${ctes} SELECT count(*)::int AS ok FROM f`, params];
}

/** The lease's check alone, in a transaction that then runs the writes as they are (fencedWrite's fallback). */
export const FENCE = "SELECT 1 FROM leases WHERE ws = $1 AND owner = $2 AND epoch = $3 FOR SHARE";
