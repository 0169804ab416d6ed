// `kill -9` of a replica during 8 writers' load, with the state in PostgreSQL (decisions SB5, SB7): no write that
// was acknowledged (201) is lost (every one is in the database), and the surviving replicas answer every request
// throughout. Real PostgreSQL, real gateway processes, real HTTP.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres, startPostgres, type Engine } from "../../../../scripts/lib/engines.js";
import { keysFile, startReplica, type Replica } from "../../../../scripts/lib/replicas.js";

const skip = missingPostgres();
const keys = Array.from({ length: 8 }, (_, i) => ({ key: `pk_test_pg_crash_${i}`, workspace_id: `ws_PgCrash000${i}`, plan: "pro" }));

describe.skipIf(skip !== null)(skip ?? "kill -9 of a replica on PostgreSQL", () => {
  let db: Engine;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    db = await startPostgres();
    const file = keysFile(keys);
    replicas.push(await startReplica(["--state", db.url, "--keys", file, "--limit-scale", "100"]));
    replicas.push(...(await Promise.all([1, 2].map(() => startReplica(["--state", db.url, "--keys", file, "--limit-scale", "100"])))));
    // Warm: each replica's first create compiles its validators.
    for (const r of replicas) {
      const res = await fetch(`${r.url}/v1/boards`, { method: "POST", headers: { "X-API-Key": keys[0]!.key, "Content-Type": "application/json" }, body: JSON.stringify({ name: "warm", widgets: [] }) });
      expect(res.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
  });

  it("loses no acknowledged write, and the survivors answer every request throughout", async () => {
    const victim = replicas[0]!;
    let killed = false;
    const acked: Array<{ key: string; id: string }> = [];
    const survivorFailures: string[] = [];
    const started = Date.now();
    const until = started + 6000;
    // Writers 0-3 write one workspace each, writers 4-7 share workspaces with them: the lock serialises those.
    const writer = async (w: number) => {
      const key = keys[w % 4 === w ? w : w - 4]!.key;
      for (let i = 0; Date.now() < until; i++) {
        const target = replicas[(w + i) % 3]!;
        try {
          const res = await fetch(`${target.url}/v1/boards`, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ name: `w${w}-${i}`, widgets: [] }) });
          const body = (await res.json()) as { id: string };
          if (res.status === 201) acked.push({ key, id: body.id });
          else if (target !== victim) survivorFailures.push(`${res.status} ${JSON.stringify(body)}`);
        } catch (e) {
          // The victim's connections break when it dies: never acknowledged, so nothing to keep.
          if (target !== victim || !killed) survivorFailures.push(String(e));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    await new Promise((r) => setTimeout(r, 1500));
    killed = true;
    await victim.kill();
    await load;
    console.log(`${acked.length} creates acknowledged in ${Date.now() - started} ms by 8 writers`);
    expect(survivorFailures).toEqual([]);
    expect(acked.length).toBeGreaterThan(16);
    // Every acknowledged create is listed by each survivor (pages of 100: a read per create would pass the keys'
    // per-minute limits), and is in the database.
    for (const survivor of replicas.slice(1)) {
      const seen = new Set<string>();
      for (const key of new Set(acked.map((a) => a.key))) {
        for (let cursor: string | null = ""; cursor !== null; ) {
          const res = await fetch(`${survivor.url}/v1/boards?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: { "X-API-Key": key } });
          expect(res.status).toBe(200);
          const page = (await res.json()) as { data: Array<{ id: string }>; next_cursor: string | null };
          for (const b of page.data) seen.add(b.id);
          cursor = page.next_cursor;
        }
      }
      expect(acked.filter((a) => !seen.has(a.id))).toEqual([]);
    }
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      const rows = await client.query<{ key: string }>("SELECT key FROM records WHERE coll = 'Board' AND key = ANY($1)", [acked.map((a) => a.id)]);
      expect(new Set(rows.rows.map((r) => r.key)).size).toBe(acked.length);
    } finally {
      await client.end();
    }
  }, 90_000);
});
