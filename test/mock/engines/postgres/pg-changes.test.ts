// What a stale replica reads (decision SB15): the rows written since the version its memory holds, and the
// tombstones of rows deleted since, from a real PostgreSQL; a replica older than the floor of kept tombstones (or
// after a reset) reads the workspace whole.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres, startPostgres, type Engine } from "../../../../scripts/lib/engines.js";
import { bump, changesSince, PG_SCHEMA, PgRows, run, TOMBSTONE_VERSIONS } from "../../../../src/mock/engines/postgres/state-pg-rows.js";

const skip = missingPostgres();
const WS = "ws_PgChanges0001";
const row = (key: string, value: string) => ({ ws: WS, coll: "Board", parent: "", key, seq: 1, value, extra: "{}" });

describe.skipIf(skip !== null)(skip ?? "changes since a version, in PostgreSQL", () => {
  let db: Engine;
  let c: pg.Client;

  beforeAll(async () => {
    db = await startPostgres();
    c = new pg.Client(db.url);
    await c.connect();
    await c.query(PG_SCHEMA);
  }, 60_000);

  afterAll(async () => {
    await c?.end();
    await db?.stop();
  });

  /** Runs what `write` buffers as one commit of the workspace; returns its version. */
  async function commit(write: (rows: PgRows) => void): Promise<number> {
    const rows = new PgRows();
    write(rows);
    await c.query("BEGIN");
    const v = await bump(c, WS);
    await run(c, rows.take().writes.get(WS) ?? [], v);
    await c.query("COMMIT");
    return v;
  }

  it("reads only the rows written since a version, and the deletions as tombstones", async () => {
    const v1 = await commit((r) => {
      r.putRecord(row("a", '{"id":"a"}'));
      r.putRecord(row("b", '{"id":"b"}'));
      r.putField({ ws: WS, name: "seq", value: "2" });
      r.putEntry(WS, "idempotency", "k1", '{"n":1}');
    });
    const whole = await changesSince(c, WS, -1);
    expect(whole.v).toBe(v1);
    expect(whole.records.map((r) => r.key)).toEqual(["a", "b"]);
    expect(whole.fields).toEqual([{ ws: WS, name: "seq", value: "2" }]);

    const v2 = await commit((r) => {
      r.putRecord(row("b", '{"id":"b","x":1}'));
      r.deleteRecord(WS, "Board", "", "a");
      r.deleteEntry(WS, "idempotency", "k1");
    });
    const since = await changesSince(c, WS, v1);
    expect(since.v).toBe(v2);
    expect(since.records.map((r) => [r.key, r.value])).toEqual([["b", '{"id":"b","x":1}']]);
    expect(since.fields).toEqual([]);
    expect(since.entries).toEqual([]);
    expect(since.gone).toHaveLength(2);
    expect(since.gone).toEqual(expect.arrayContaining([
      { kind: "entry", name: "idempotency", parent: "", key: "k1" },
      { kind: "record", name: "Board", parent: "", key: "a" },
    ]));
    expect(await changesSince(c, WS, v2)).toMatchObject({ v: v2, records: [], fields: [], entries: [], gone: [] });
  });

  it("a record deleted and written again since the version is read as written (rows win over tombstones)", async () => {
    const v = (await changesSince(c, WS, -1)).v;
    await commit((r) => r.deleteRecord(WS, "Board", "", "b"));
    await commit((r) => r.putRecord(row("b", '{"id":"b","x":2}')));
    const since = await changesSince(c, WS, v);
    expect(since.gone.map((g) => g.key)).toEqual(["b"]);
    expect(since.records.map((r) => r.value)).toEqual(['{"id":"b","x":2}']);
  });

  it(`tombstones older than ${TOMBSTONE_VERSIONS} versions are pruned and the floor raised: memory older than it reads the workspace whole`, async () => {
    const before = (await changesSince(c, WS, -1)).v;
    await commit((r) => r.deleteRecord(WS, "Board", "", "b"));
    let v = before;
    while (v < before + 2 * TOMBSTONE_VERSIONS) v = await commit((r) => r.putField({ ws: WS, name: "seq", value: String(v) }));
    const now = await changesSince(c, WS, v - 1);
    expect(now.floor).toBeGreaterThan(before + 1);
    expect(now.floor % TOMBSTONE_VERSIONS).toBe(0);
    // The tombstone of "b" (written at before + 1) is gone: a replica at `before` must not be brought up by changes.
    expect((await changesSince(c, WS, before)).gone).toEqual([]);
    expect(before).toBeLessThan(now.floor);
  });
});
