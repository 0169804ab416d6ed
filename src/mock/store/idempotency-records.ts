// The answers a workspace remembers per `Idempotency-Key` (stages/idempotency.ts): a plain, serialisable structure
// kept in the workspace's data (records.ts), so the state file keeps it and `POST /__mock/reset` forgets it with the
// workspace. At most MAX_KEYS per workspace: beyond, the oldest is forgotten (they expire after the contract's window
// anyway; a cap that refused new keys would break the clients that send one with every write).

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

export class IdempotencyRecords {
  /** Key → record, oldest first (insertion order). */
  private readonly byKey = new Map<string, IdempotencyRecord>();

  constructor(private readonly max = MAX_IDEMPOTENCY_KEYS) {}

  get size(): number {
    return this.byKey.size;
  }

  /** The record of `key`, if it is younger than `windowMs` at `now`; an expired one is forgotten. */
  get(key: string, now: number, windowMs: number): IdempotencyRecord | undefined {
    const r = this.byKey.get(key);
    if (r && now - r.at >= windowMs) {
      this.byKey.delete(key);
      return undefined;
    }
    return r;
  }

  put(key: string, record: IdempotencyRecord): void {
    this.byKey.delete(key);
    this.byKey.set(key, record);
    while (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value!);
  }

  snapshot(): Record<string, IdempotencyRecord> {
    return Object.fromEntries(this.byKey);
  }

  /** How the state database writes it (a workspace field, persist.ts): the snapshot. */
  toJSON(): Record<string, IdempotencyRecord> {
    return this.snapshot();
  }

  /** Read back from the state database in place (persist.ts); a malformed record throws with its place. */
  fill(data: unknown, where: string): void {
    const read = IdempotencyRecords.restore(data, where);
    this.byKey.clear();
    for (const [k, r] of read.byKey) this.byKey.set(k, r);
  }

  /** Restores a snapshot; a malformed record throws with its place (`where`.key). */
  static restore(data: unknown, where: string): IdempotencyRecords {
    const out = new IdempotencyRecords();
    if (data === undefined || data === null) return out;
    if (typeof data !== "object" || Array.isArray(data)) throw new Error(`${where} must be an object of records by key`);
    for (const [key, r] of Object.entries(data as Record<string, IdempotencyRecord>)) {
      const ok =
        r && typeof r.fingerprint === "string" && Number.isInteger(r.status) && typeof r.body === "string" && typeof r.at === "number" && r.headers && typeof r.headers === "object";
      if (!ok) throw new Error(`${where}.${key}: needs fingerprint, status, headers, body and at`);
      out.put(key, { fingerprint: r.fingerprint, status: r.status, headers: { ...r.headers }, body: r.body, at: r.at });
    }
    return out;
  }
}
