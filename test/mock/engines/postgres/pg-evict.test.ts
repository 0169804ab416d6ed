// A workspace leaving memory on a replica on PostgreSQL (--max-workspaces, decisions DB6, SB19): two replicas that
// keep one workspace each in memory take writes to three workspaces at once, so each write makes another leave,
// some while their changes wait for the commit or their analyses move. Nothing is lost: every created board is read
// back through both replicas, every Idempotency-Key replays its first answer, every analysis completes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres, startPostgres, type Engine } from "../../../../scripts/lib/engines.js";
import { call } from "../../../helpers/mock.js";
import { keysFile, startReplicas, type Replica } from "../../../../scripts/lib/replicas.js";

const skip = missingPostgres();
const keys = [0, 1, 2].map((i) => ({ key: `pk_test_pg_evict_${i}`, workspace_id: `ws_PgEvict000${i}`, plan: "pro" }));

describe.skipIf(skip !== null)(skip ?? "a workspace leaving memory on a replica on PostgreSQL", () => {
  let db: Engine;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    db = await startPostgres();
    replicas = await startReplicas(2, ["--state", db.url, "--keys", keysFile(keys), "--max-workspaces", "1", "--limit-scale", "100"], { MOCK_STEP_MS: "100" });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
  });

  it("writes to three workspaces through replicas that keep one: every board, every Idempotency-Key answer and every analysis is kept", async () => {
    const [a, b] = replicas.map((r) => r.url) as [string, string];
    const jobs = Array.from({ length: 60 }, (_, i) => ({ i, k: keys[i % 3]! }));
    const boards: Array<{ k: (typeof keys)[number]; id: string; idem: string; name: string }> = [];
    const analyses: Array<{ k: (typeof keys)[number]; id: string }> = [];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let job = jobs.shift(); job; job = jobs.shift()) {
          const { i, k } = job;
          const idem = `evict-${i}`;
          const made = await call(i % 2 ? a : b, "POST", "/v1/boards", { key: k.key, body: { name: `b-${i}`, widgets: [] }, headers: { "Idempotency-Key": idem } });
          expect(made.status).toBe(201);
          boards.push({ k, id: made.body.id, idem, name: `b-${i}` });
          if (i % 4 === 0) {
            const an = await call(a, "POST", "/v1/analyses", { key: k.key, body: { media_type: "text", text: `evict ${i}`, features: ["transcription"] } });
            expect(an.status).toBe(202);
            analyses.push({ k, id: an.body.id });
          }
        }
      }),
    );
    for (const { k, id, idem, name } of boards) {
      for (const url of [a, b]) expect((await call(url, "GET", `/v1/boards/${id}`, { key: k.key })).status).toBe(200);
      const replay = await call(b, "POST", "/v1/boards", { key: k.key, body: { name, widgets: [] }, headers: { "Idempotency-Key": idem } });
      expect([replay.status, replay.body.id]).toEqual([201, id]);
    }
    const until = Date.now() + 60_000;
    const status = async ({ k, id }: { k: (typeof keys)[number]; id: string }) => (await call(b, "GET", `/v1/analyses/${id}`, { key: k.key })).body?.status;
    let left = analyses;
    while (left.length && Date.now() < until) {
      left = (await Promise.all(left.map(async (x) => ((await status(x)) === "completed" ? null : x)))).filter((x) => x !== null);
      if (left.length) await new Promise((r) => setTimeout(r, 500));
    }
    expect(left).toEqual([]);
  }, 120_000);
});
