// Lifecycle steps exactly once across replicas (decisions SB8, SB17): 3 replicas on one PostgreSQL move 1,000 created
// analyses (and each workspace's seeded ones that are still processing) from queued through processing to completed;
// the replica that wrote a resource runs its next step, the others hold a later backup turn, and a step runs under the
// workspace's lock, skipped where another replica moved the resource first. Counted where it shows: each analysis,
// seeded ones included, is completed once, so its `analysis.completed` webhook is delivered once, never twice; and
// every workspace's webhook, registered through one replica, is called by whichever completes it (SB16).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completedReceiver, type CompletedReceiver } from "../../../helpers/webhook-receiver.js";
import { missingPostgres, startPostgres, type Engine } from "../../../../scripts/lib/engines.js";
import { keysFile, startReplica, type Replica } from "../../../../scripts/lib/replicas.js";

const skip = missingPostgres();
// 1,000 analyses, as the issue asks: 50 workspaces × 20 (PG_LIFE_WORKSPACES sets fewer), 20 creates in flight, steps
// of 100 ms; PG_LIFE_VERBOSE=1 prints progress.
const WORKSPACES = Number(process.env.PG_LIFE_WORKSPACES ?? 50);
const PER_WORKSPACE = 20;
const CONCURRENT = 20;
const keys = Array.from({ length: WORKSPACES }, (_, i) => ({ key: `pk_test_pg_life_${i}`, workspace_id: `ws_PgLife${String(i).padStart(4, "0")}`, plan: "pro" }));
/** The workspace whose writer is killed (the second test). */
const orphan = { key: "pk_test_pg_life_orphan", workspace_id: "ws_PgLife9999", plan: "pro" };

describe.skipIf(skip !== null)(skip ?? "lifecycle steps once across replicas on PostgreSQL", () => {
  let db: Engine;
  const replicas: Replica[] = [];
  let receiver: CompletedReceiver;

  beforeAll(async () => {
    receiver = await completedReceiver();
    db = await startPostgres();
    const file = keysFile([...keys, orphan]);
    // Limits scaled so that a thousand creates at once are not throttled (a 429 would only be retried).
    const args = ["--state", db.url, "--keys", file, "--allow-loopback-webhooks", "--limit-scale", "100"];
    const env = { MOCK_STEP_MS: "100", MOCK_WEBHOOK_DELAY_MS: "0" };
    replicas.push(await startReplica(args, env));
    replicas.push(...(await Promise.all([1, 2].map(() => startReplica(args, env)))));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
    receiver?.close();
  });

  /** POSTs through replica `n` (of 3), retried on a 429 or 503 (a limit, a cap): each analysis is made once. */
  async function post(n: number, key: string, path: string, body: unknown): Promise<{ id: string }> {
    for (;;) {
      const res = await fetch(`${replicas[n % 3]!.url}${path}`, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const out = (await res.json()) as { id: string };
      if (res.status === 201 || res.status === 202) return out;
      if (res.status !== 429 && res.status !== 503) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}\n${replicas[n % 3]!.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  it(`${WORKSPACES * PER_WORKSPACE} analyses over ${WORKSPACES} workspaces, and the seeded ones, each complete once: one analysis.completed delivery each, none twice`, async () => {
    const url = receiver.url();
    for (const [i, k] of keys.entries()) await post(i, k.key, "/v1/webhooks", { url, event_types: ["analysis.completed"] });
    // Creates sent CONCURRENT at a time (1,000 at once were refused by the replicas' time and connection limits),
    // spread round-robin over the replicas: a workspace's first rows may come from any of them.
    const t0 = Date.now();
    const progress = setInterval(() => process.env.PG_LIFE_VERBOSE && console.log(`${(Date.now() - t0) / 1000}s made ${made.length} delivered ${receiver.deliveries.size}`), 5000);
    const todo = keys.flatMap((k, w) => Array.from({ length: PER_WORKSPACE }, (_, i) => ({ k, w, i })));
    const made: string[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        for (let job = todo.shift(); job; job = todo.shift()) {
          const { k, w, i } = job;
          made.push(`${k.workspace_id}/${(await post(w + i, k.key, "/v1/analyses", { media_type: "text", text: `call ${w}-${i}`, features: ["transcription"] })).id}`);
        }
      }),
    );
    expect(new Set(made).size).toBe(WORKSPACES * PER_WORKSPACE);
    const until = Date.now() + 120_000;
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      const moving = async () => (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE coll = 'Analysis' AND ws = ANY($1) AND value::json->>'status' IN ('queued', 'processing')", [keys.map((k) => k.workspace_id)])).rows[0]!.n;
      while ((made.some((id) => !receiver.deliveries.has(id)) || (await moving()) > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
      await new Promise((r) => setTimeout(r, 3000)); // a second delivery, if any, would come now
      // Every analysis of these workspaces, seeded ones included, as the database holds it.
      const rows = await client.query<{ id: string; status: string }>("SELECT ws || '/' || key AS id, value::json->>'status' AS status FROM records WHERE coll = 'Analysis' AND ws = ANY($1)", [keys.map((k) => k.workspace_id)]);
      const seeded = rows.rows.filter((r) => !made.includes(r.id));
      expect(seeded.length).toBeGreaterThan(0);
      // Nothing is left moving; every created one completed (a seeded one may rest in another state, failed say).
      expect(rows.rows.filter((r) => r.status === "queued" || r.status === "processing")).toEqual([]);
      expect(rows.rows.filter((r) => made.includes(r.id) && r.status === "completed")).toHaveLength(made.length);
      expect([...receiver.deliveries].filter(([, n]) => n !== 1)).toEqual([]);
      const undelivered = made.filter((id) => receiver.deliveries.get(id) !== 1);
      const said = replicas.flatMap((r, n) => r.output().split("\n").filter((l) => /not (sent|written)|lifecycle step/.test(l)).slice(-5).map((l) => `replica ${n}: ${l}`));
      expect(undelivered, said.join("\n")).toEqual([]);
      expect(seeded.filter((r) => receiver.deliveries.has(r.id)).length).toBeGreaterThan(0);
    } finally {
      clearInterval(progress);
      await client.end();
    }
  }, 400_000);

  it("a replica killed after creating analyses: another completes each once, on its backup turn (SB17)", async () => {
    const url = receiver.url();
    await post(1, orphan.key, "/v1/webhooks", { url, event_types: ["analysis.completed"] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(0, orphan.key, "/v1/analyses", { media_type: "text", text: `orphan ${i}`, features: ["transcription"] })).id);
    await replicas[0]!.kill();
    // A client polls its analyses through the survivors: reading them, a survivor holds them and their backup turns.
    const until = Date.now() + 60_000;
    const done = () => ids.every((id) => receiver.deliveries.has(`${orphan.workspace_id}/${id}`));
    while (!done() && Date.now() < until) {
      for (const id of ids) await fetch(`${replicas[1 + (ids.indexOf(id) % 2)]!.url}/v1/analyses/${id}`, { headers: { "X-API-Key": orphan.key } });
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 3000)); // a second delivery, if any, would come now
    expect(ids.map((id) => receiver.deliveries.get(`${orphan.workspace_id}/${id}`))).toEqual(ids.map(() => 1));
  }, 120_000);
});
