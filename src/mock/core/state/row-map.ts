// A Map whose entries are rows of their own in the state database (state-db.ts, decision DB11): every key set or
// deleted is noted, so a commit writes those rows and nothing else. For state that grows with history
// (remembered Idempotency-Key answers, OAuth grants): kept as one JSON value, it was rewritten whole on every change
// (issue 29: 46 MiB per keyed write after 1,000 large answers). Insertion order is kept (a key set again moves to
// the end) and is the order rows are read back in, so "oldest first" survives a restart.

/** What a RowMap's rows are written as: key → JSON, or null for a deleted key. */
export type RowChange = [key: string, json: string | null];

export class RowMap<V> {
  private readonly map = new Map<string, V>();
  private readonly noted = new Set<string>();

  /** `read` checks a value read back from the database and returns it; it throws, saying what is wrong. */
  constructor(private readonly read: (value: unknown, key: string) => V) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** Sets `key` (moved to the end: the newest). */
  set(key: string, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    this.noted.add(key);
    return this;
  }

  delete(key: string): boolean {
    const had = this.map.delete(key);
    if (had) this.noted.add(key);
    return had;
  }

  clear(): void {
    for (const k of this.map.keys()) this.noted.add(k);
    this.map.clear();
  }

  /** The oldest entry (first set), if any. */
  first(): [string, V] | undefined {
    return this.map.entries().next().value;
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[string, V]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.map.entries();
  }

  /** The rows to write: every key set or deleted since they were last written; `all` for every entry. */
  changes(all = false): RowChange[] {
    const keys = all ? this.map.keys() : this.noted;
    return [...keys].map((k) => [k, this.map.has(k) ? JSON.stringify(this.map.get(k)) : null]);
  }

  /** The rows of `changes` are committed (right after the transaction that wrote them: nothing ran between). */
  written(changes: readonly RowChange[]): void {
    for (const [k] of changes) this.noted.delete(k);
  }

  /**
   * Applies rows another writer committed (state-pg.ts, SB15): `removed` keys deleted, `rows` set (each moved to the
   * end, oldest first as given), every value checked by `read` before anything changes; nothing is noted (the
   * database holds them). A bad row throws naming `where` and its key.
   */
  apply(rows: Iterable<{ key: string; value: string }>, removed: Iterable<string>, where: string): void {
    const read = [...rows].map(({ key, value }) => [key, this.readRow(key, value, where)] as const);
    for (const key of removed) (this.map.delete(key), this.noted.delete(key));
    for (const [key, value] of read) {
      this.map.delete(key);
      this.map.set(key, value);
      this.noted.delete(key);
    }
  }

  private readRow(key: string, value: string, where: string): V {
    try {
      return this.read(JSON.parse(value), key);
    } catch (e) {
      throw new Error(`${where}, key ${JSON.stringify(key)}: ${(e as Error).message}`);
    }
  }

  /**
   * Replaces the entries with rows read back from the database, oldest first, each checked by `read`; nothing is
   * noted (the database holds them). A bad row throws naming `where` and its key.
   */
  fill(rows: Iterable<{ key: string; value: string }>, where: string): void {
    this.map.clear();
    this.noted.clear();
    for (const { key, value } of rows) this.map.set(key, this.readRow(key, value, where));
  }
}

/** Does a part of the state keep some of its state as RowMaps (written as rows, not as its snapshot)? */
export interface HasRows {
  /** Its RowMaps by a name unique within the part. */
  readonly rows: Record<string, RowMap<unknown>>;
}

export function hasRows(x: unknown): x is HasRows {
  return !!x && typeof x === "object" && "rows" in x && typeof (x as HasRows).rows === "object" && (x as HasRows).rows !== null;
}
