// One clock across replicas (issue 44, decision SB24): 3 replicas on one PostgreSQL and one Redis, over real HTTP.
// With the clock paused, an analysis created through A is moved to its end by one advance, made through C or
// through A itself, and read completed through B: every step due by the advanced time runs at once, as in one
// process. The read is polled with a bound of 1 s after the advance is answered (a deadline, not a timing).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, missingPostgres, startPostgres, startRedis, type Engine } from "../../../scripts/lib/engines.js";
import { keysFile, startReplicas, type Replica } from "../../../scripts/lib/replicas.js";

const skip = missingPostgres() ?? missing("redis");
const K = { key: "pk_test_clock_alpha", workspace_id: "ws_ClockAlpha1", plan: "pro" };
const BOUND_MS = 1_000;

async function call(r: Replica, method: string, path: string, body?: unknown) {
  const res = await fetch(`${r.url}${path}`, { method, headers: { "X-API-Key": K.key, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Reads the analysis through `r` until it is completed, for at most BOUND_MS; answers the last status read. */
async function completedWithin(r: Replica, id: string): Promise<string> {
  const until = Date.now() + BOUND_MS;
  for (;;) {
    const status = (await call(r, "GET", `/v1/analyses/${id}`)).body.status as string;
    if (status === "completed" || Date.now() > until) return status;
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe.skipIf(skip !== null)(skip ?? "one clock across replicas on PostgreSQL and Redis", () => {
  let db: Engine;
  let redis: Engine;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [db, redis] = await Promise.all([startPostgres(), startRedis()]);
    replicas = await startReplicas(3, ["--state", db.url, "--redis", redis.url, "--keys", keysFile([K])], { MOCK_STEP_MS: "1000" });
    // The workspace read through each replica first: its seed written once. A replica that reads a workspace whole
    // from the database arms its steps from the time it reads it (SB17, SB24: not yet from their due times).
    for (const r of replicas) expect((await call(r, "GET", "/v1/analyses?limit=1")).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await Promise.all([db?.stop(), redis?.stop()]);
  });

  for (const through of ["C", "A"] as const) {
    it(`paused, an analysis created through A and a 30 s advance through ${through}: read completed through B within ${BOUND_MS} ms`, async () => {
      const [a, b, c] = replicas as [Replica, Replica, Replica];
      expect((await call(c, "POST", "/__mock/clock", { action: "pause" })).status).toBe(200);
      const made = await call(a, "POST", "/v1/analyses", { media_url: "https://media.example.com/calls/clock.mp3", media_type: "audio", features: ["transcription", "summary"] });
      expect(made.status).toBe(202);
      expect((await call(b, "GET", `/v1/analyses/${made.body.id}`)).body.status).toBe("queued");
      expect((await call(through === "C" ? c : a, "POST", "/__mock/clock", { action: "advance", ms: 30_000 })).status).toBe(200);
      expect(await completedWithin(b, made.body.id)).toBe("completed");
      expect((await call(c, "GET", `/v1/analyses/${made.body.id}`)).body.status).toBe("completed");
    }, 60_000);
  }
});
