// The answers a workspace remembers per `Idempotency-Key` (stages/idempotency.ts): kept in the workspace's data
// (records.ts), so `POST /__mock/reset` forgets them with the workspace, and with `--state` as rows of their own
// (a RowMap: one row per key, decision DB11), so a keyed write costs the same after 1,000 keys as after 1.
// At most MAX_KEYS per workspace: beyond, the oldest is forgotten; a record older than the contract's window
// (x-idempotency.window_seconds) is forgotten when it is looked up or when a newer one is remembered (a cap that
// refused new keys would break the clients that send one with every write).
import { RowMap } from "../state/row-map.js";

/** Keys remembered per workspace at most (documented in docs/decisions/contract.md, ID3). */
export const MAX_IDEMPOTENCY_KEYS = 1000;

/** One remembered answer. */
export interface IdempotencyRecord {
  /** sha256 of method, path and body (stages/idempotency.ts). */
  fingerprint: string;
  status: number;
  /** The answer's own headers (Content-Type, …); the rate-limit headers are the replay's own. */
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
  /** When it was answered, ms since the epoch. */
  at: number;
}

/** A stored record checked (a malformed one throws, saying what it lacks). */
function readRecord(r: unknown): IdempotencyRecord {
  const x = r as IdempotencyRecord;
  const ok = x && typeof x.fingerprint === "string" && Number.isInteger(x.status) && typeof x.body === "string" && typeof x.at === "number" && x.headers && typeof x.headers === "object";
  if (!ok) throw new Error("needs fingerprint, status, headers, body and at");
  return { fingerprint: x.fingerprint, status: x.status, headers: { ...x.headers }, body: x.body, at: x.at };
}

export class IdempotencyRecords {
  /** Key → record, oldest first (insertion order); with --state, a row per key. */
  readonly rows = new RowMap<IdempotencyRecord>(readRecord);

  constructor(private readonly max = MAX_IDEMPOTENCY_KEYS) {}

  get size(): number {
    return this.rows.size;
  }

  /** The record of `key`, if it is younger than `windowMs` at `now`; an expired one is forgotten. */
  get(key: string, now: number, windowMs: number): IdempotencyRecord | undefined {
    const r = this.rows.get(key);
    if (r && now - r.at >= windowMs) {
      this.rows.delete(key);
      return undefined;
    }
    return r;
  }

  /**
   * Remembers `record` under `key`; records past `windowMs` at `record.at` are forgotten, oldest first, and beyond
   * the cap the oldest too. Each costs a row deleted: one put writes a bounded number of rows.
   */
  put(key: string, record: IdempotencyRecord, windowMs = Infinity): void {
    this.rows.set(key, record);
    for (let old = this.rows.first(); old && (record.at - old[1].at >= windowMs || this.rows.size > this.max); old = this.rows.first()) this.rows.delete(old[0]);
  }

  snapshot(): Record<string, IdempotencyRecord> {
    return Object.fromEntries(this.rows);
  }

  /** Restores a snapshot (a JSON state file, or a database of the first format); a bad record throws with its place (`where`.key). */
  static restore(data: unknown, where: string): IdempotencyRecords {
    const out = new IdempotencyRecords();
    if (data === undefined || data === null) return out;
    if (typeof data !== "object" || Array.isArray(data)) throw new Error(`${where} must be an object of records by key`);
    for (const [key, r] of Object.entries(data as Record<string, unknown>)) {
      try {
        out.put(key, readRecord(r));
      } catch (e) {
        throw new Error(`${where}.${key}: ${(e as Error).message}`);
      }
    }
    return out;
  }
}
