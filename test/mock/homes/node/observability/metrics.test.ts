// GET /metrics (homes/node/observability/metrics.ts) on a replica on the real engines, over real HTTP: requests counted by the
// contract's operationId and status, their latency histogram, PostgreSQL and Redis round trips, and Redis's errors
// once Redis is gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, missingPostgres, startPostgres, startRedis, type Engine } from "../../../../../scripts/lib/engines.js";
import { call as callWith } from "../../../../helpers/mock.js";
import { keysFile, startReplicas, type Replica } from "../../../../../scripts/lib/replicas.js";

const skip = missingPostgres() ?? missing("redis");
const A = { key: "pk_test_metrics", workspace_id: "ws_Metrics0001", plan: "pro" };
const call = (url: string, method: string, path: string, body?: unknown) => callWith(url, method, path, { key: A.key, body });

/** The value of one sample of the Prometheus text `text` (its name with labels as written), or undefined. */
function sample(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe.skipIf(skip !== null)(skip ?? "GET /metrics on a replica on PostgreSQL and Redis", () => {
  let db: Engine;
  let redis: Engine;
  let replica: Replica;
  const metrics = async () => {
    const r = await fetch(`${replica.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text();
  };

  beforeAll(async () => {
    [db, redis] = await Promise.all([startPostgres(), startRedis()]);
    replica = (await startReplicas(1, ["--state", db.url, "--redis", redis.url, "--keys", keysFile([A])]))[0]!;
  }, 120_000);

  afterAll(async () => {
    await replica?.stop();
    await Promise.all([db?.stop(), redis?.stop()]);
  });

  it("counts requests by operation and status, with a latency histogram, and the engines' round trips", async () => {
    const before = await metrics();
    const pgBefore = sample(before, "avt_postgres_round_trips_total")!;
    const redisBefore = sample(before, "avt_redis_round_trips_total")!;
    for (let i = 0; i < 5; i++) expect((await call(replica.url, "POST", "/v1/boards", { name: `b${i}`, widgets: [] })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await call(replica.url, "GET", "/v1/boards/brd_none")).status).toBe(422);
    const text = await metrics();
    expect(sample(text, 'avt_http_requests_total{operation="createBoard",status="201"}')).toBe(5);
    expect(sample(text, 'avt_http_requests_total{operation="getBoard",status="422"}')).toBe(3);
    expect(sample(text, 'avt_http_request_duration_seconds_count{operation="createBoard"}')).toBe(5);
    expect(sample(text, 'avt_http_request_duration_seconds_bucket{le="+Inf",operation="getBoard"}')).toBe(3);
    // Each create is at least one transaction in PostgreSQL, each counted request a command in Redis.
    expect(sample(text, "avt_postgres_round_trips_total")! - pgBefore).toBeGreaterThanOrEqual(5);
    expect(sample(text, "avt_redis_round_trips_total")! - redisBefore).toBeGreaterThanOrEqual(8);
    expect(sample(text, "avt_postgres_errors_total")).toBe(0);
    expect(sample(text, "avt_webhook_queue_depth")).toBe(0);
    expect(sample(text, "avt_open_streams")).toBe(0);
  });

  it("counts Redis's errors once Redis is gone, and the 503s they answer", async () => {
    const before = sample(await metrics(), "avt_redis_errors_total")!;
    await redis.stop();
    const r = await call(replica.url, "GET", "/v1/boards");
    expect(r.status).toBe(503);
    const text = await metrics();
    expect(sample(text, "avt_redis_errors_total")!).toBeGreaterThan(before);
    expect(sample(text, 'avt_http_requests_total{operation="listBoards",status="503"}')).toBe(1);
  });
});
