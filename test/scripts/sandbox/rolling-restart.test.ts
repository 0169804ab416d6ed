// Durable work across a rolling restart (issue 44, decision SB23): 3 replicas on one PostgreSQL and one Redis, over
// real HTTP. While analyses are created round-robin over the replicas alive, each replica in turn is stopped with
// SIGTERM (it drains) and a new one started in its place, then one is killed with SIGKILL. Every analysis completes,
// and the webhook receiver gets exactly one `analysis.completed` for each: a delivery queued in the outbox is made by
// whichever replica claims it, and a claim of a replica that drained or died is made by another.
// The issue asked for 300 analyses; on the team's shared 2-core host 90 (3 workspaces × 30) keep this under 2 min.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completedReceiver, type CompletedReceiver } from "../../helpers/webhook-receiver.js";
import { missing, missingPostgres, startPostgres, startRedis, type Engine } from "../../../scripts/lib/engines.js";
import { keysFile, startReplica, type Replica } from "../../../scripts/lib/replicas.js";

const skip = missingPostgres() ?? missing("redis");
const PER_WORKSPACE = 30;
const keys = [0, 1, 2].map((i) => ({ key: `pk_test_roll_${i}`, workspace_id: `ws_Roll${String(i).padStart(6, "0")}`, plan: "pro" }));

describe.skipIf(skip !== null)(skip ?? "a rolling restart and a kill -9 under creates", () => {
  let db: Engine;
  let redis: Engine;
  let receiver: CompletedReceiver;
  let args: string[];
  const env = { MOCK_STEP_MS: "300", MOCK_WEBHOOK_DELAY_MS: "0" };
  /** Replicas taking requests; one being restarted is out of it. */
  let live: Replica[] = [];
  const all: Replica[] = [];

  beforeAll(async () => {
    receiver = await completedReceiver();
    [db, redis] = await Promise.all([startPostgres(), startRedis()]);
    args = ["--state", db.url, "--redis", redis.url, "--keys", keysFile(keys), "--allow-loopback-webhooks", "--limit-scale", "100"];
    const first = await startReplica(args, env);
    live = [first, ...(await Promise.all([1, 2].map(() => startReplica(args, env))))];
    all.push(...live);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(all.map((r) => r.stop()));
    await Promise.all([db?.stop(), redis?.stop()]);
    receiver?.close();
  });

  /** POSTs through the replicas alive, round-robin; a refused connection, a 429 or a 503 is tried again elsewhere. */
  let turn = 0;
  async function post(key: string, path: string, body: unknown): Promise<{ id: string }> {
    for (let tries = 0; tries < 200; tries++) {
      const r = live[turn++ % live.length]!;
      try {
        const res = await fetch(`${r.url}${path}`, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify(body) });
        const out = (await res.json()) as { id: string };
        if (res.status === 201 || res.status === 202) return out;
        if (res.status !== 429 && res.status !== 503) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}`);
      } catch (e) {
        if ((e as Error).message.startsWith(path)) throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${path}: no replica answered`);
  }

  async function replace(r: Replica, how: "stop" | "kill"): Promise<void> {
    live = live.filter((x) => x !== r);
    await (how === "stop" ? r.stop() : r.kill());
    const next = await startReplica(args, env);
    all.push(next);
    live.push(next);
  }

  it(`${keys.length * PER_WORKSPACE} analyses created through a rolling SIGTERM restart of all three and a kill -9: each completes, with one analysis.completed`, async () => {
    const url = receiver.url();
    for (const k of keys) await post(k.key, "/v1/webhooks", { url, event_types: ["analysis.completed"] });
    const made: string[] = [];
    let creating = true;
    const creators = keys.map(async (k) => {
      for (let i = 0; i < PER_WORKSPACE; i++) {
        made.push(`${k.workspace_id}/${(await post(k.key, "/v1/analyses", { media_type: "text", text: `call ${i}`, features: ["transcription"] })).id}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    });
    const restarts = (async () => {
      for (const r of [...live]) {
        await new Promise((res) => setTimeout(res, 1000));
        if (creating) await replace(r, "stop");
      }
      await new Promise((res) => setTimeout(res, 500));
      await replace(live[0]!, "kill");
    })();
    await Promise.all(creators);
    creating = false;
    await restarts;
    expect(new Set(made).size).toBe(keys.length * PER_WORKSPACE);

    const client = new pg.Client(db.url);
    await client.connect();
    try {
      const ids = keys.map((k) => k.workspace_id);
      const status = async () => (await client.query<{ id: string; status: string }>("SELECT ws || '/' || key AS id, value::json->>'status' AS status FROM records WHERE coll = 'Analysis' AND ws = ANY($1)", [ids])).rows;
      // Deliveries still queued (none while there is no outbox table: before SB23 there was none).
      const queued = async () => {
        if (!(await client.query<{ t: boolean }>("SELECT to_regclass('outbox') IS NOT NULL AS t")).rows[0]!.t) return 0;
        return Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM outbox")).rows[0]!.n);
      };
      // Polled with a bound: replicas that read a workspace move its analyses; a read of each brings it to one.
      for (const until = Date.now() + 120_000; Date.now() < until; ) {
        const done = (await status()).filter((r) => made.includes(r.id) && r.status === "completed").length;
        if (done === made.length && made.every((id) => receiver.deliveries.has(id)) && (await queued()) === 0) break;
        for (const k of keys) await fetch(`${live[0]!.url}/v1/analyses?limit=1`, { headers: { "X-API-Key": k.key } }).then((r) => r.body?.cancel());
        await new Promise((r) => setTimeout(r, 500));
      }
      await new Promise((r) => setTimeout(r, 2000)); // a second delivery, if any, would come now
      const rows = await status();
      expect(rows.filter((r) => made.includes(r.id) && r.status !== "completed")).toEqual([]);
      expect(made.filter((id) => receiver.deliveries.get(id) !== 1).map((id) => `${id}: ${receiver.deliveries.get(id) ?? 0}`)).toEqual([]);
    } finally {
      await client.end();
    }
  }, 300_000);
});
