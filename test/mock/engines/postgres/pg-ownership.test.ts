// Workspace ownership (`--ownership`, decision SB29) over real HTTP on a real PostgreSQL, 3 replicas: one replica
// owns a workspace under a lease; the others forward its requests there; a killed owner's lease expires and another
// replica takes the workspace, with everything acknowledged before; a write fenced by an epoch that is no longer the
// lease's writes nothing; a draining owner gives its leases up at once.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres } from "../../../../scripts/lib/engines.js";
import type { Replica } from "../../../../scripts/lib/replicas.js";
import { startOwnedCluster, type OwnedCluster } from "../../../helpers/owned-replicas.js";
import { fencedWrite, LEASE_SECONDS } from "../../../../src/mock/engines/postgres/leases.js";
import { call } from "../../../helpers/mock.js";

const skip = missingPostgres();
const A = { key: "pk_test_own_alpha", workspace_id: "ws_OwnAlpha001", plan: "pro" };

/** Polls `fn` until it returns a value, for at most `ms` (a bound, not a timing: the lease's own expiry and more). */
async function eventually<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const out = await fn();
    if (out !== undefined) return out;
    if (Date.now() > end) throw new Error(`nothing within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(skip !== null)(skip ?? "workspace ownership, on PostgreSQL", () => {
  let cluster: OwnedCluster;
  let client: pg.Client;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    cluster = await startOwnedCluster(3, [A]);
    ({ client, replicas } = cluster);
  }, 120_000);

  afterAll(async () => {
    cluster.replicas = replicas;
    await cluster?.stop();
  });

  const lease = async () => (await client.query<{ owner: string; url: string; epoch: string }>("SELECT owner, url, epoch FROM leases WHERE ws = $1", [A.workspace_id])).rows[0];

  it("one owner; the others forward; a killed owner's workspace is taken by another replica, nothing acknowledged lost", async () => {
    const made = await call(replicas[1]!.url, "POST", "/v1/boards", { key: A.key, body: { name: "kept", widgets: [] } });
    expect(made.status).toBe(201);
    const first = (await lease())!;
    const owner = replicas.find((r) => r.url === first.url)!;
    expect(owner).toBeDefined();
    // Every replica answers it, the non-owners through the owner.
    for (const r of replicas) expect((await call(r.url, "GET", `/v1/boards/${made.body.id}`, { key: A.key })).body).toEqual(made.body);

    await owner.kill();
    const other = replicas.find((r) => r !== owner)!;
    const refused: number[] = [];
    const read = await eventually(async () => {
      const r = await call(other.url, "GET", `/v1/boards/${made.body.id}`, { key: A.key });
      if (r.status === 200) return r;
      // Until the lease expires: the contract's 503, JSON with Retry-After, never a hang or a 404.
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBeTruthy();
      expect(r.body.error).toBe("dependency_unavailable");
      refused.push(r.status);
      return undefined;
    }, (LEASE_SECONDS + 10) * 1000);
    expect(read.body).toEqual(made.body);
    const second = (await lease())!;
    expect(second.url).not.toBe(first.url);
    expect(Number(second.epoch)).toBeGreaterThan(Number(first.epoch));
    replicas = replicas.filter((r) => r !== owner);

    // The old owner's epoch fences nothing in: a write under it writes no row.
    const [sql, params] = fencedWrite(A.workspace_id, first.owner, Number(first.epoch), [["INSERT INTO fields (ws, name, value, ver) VALUES ($1, $2, $3, $4) ON CONFLICT (ws, name) DO UPDATE SET value = EXCLUDED.value, ver = EXCLUDED.ver", [A.workspace_id, "fenced", "{}"]]], 1)!;
    expect((await client.query<{ ok: number }>(sql, params)).rows[0]!.ok).toBe(0);
    expect((await client.query("SELECT 1 FROM fields WHERE ws = $1 AND name = 'fenced'", [A.workspace_id])).rowCount).toBe(0);
    // …and under the new one, it does.
    const [sql2, params2] = fencedWrite(A.workspace_id, second.owner, Number(second.epoch), [["INSERT INTO fields (ws, name, value, ver) VALUES ($1, $2, $3, $4) ON CONFLICT (ws, name) DO UPDATE SET value = EXCLUDED.value, ver = EXCLUDED.ver", [A.workspace_id, "fenced", "{}"]]], 1)!;
    expect((await client.query<{ ok: number }>(sql2, params2)).rows[0]!.ok).toBe(1);
    await client.query("DELETE FROM fields WHERE ws = $1 AND name = 'fenced'", [A.workspace_id]);
  }, 120_000);

  it("a draining owner gives its leases up: the next request is answered by another replica at once", async () => {
    const made = await call(replicas[0]!.url, "POST", "/v1/boards", { key: A.key, body: { name: "drained", widgets: [] } });
    expect(made.status).toBe(201);
    const held = (await lease())!;
    const draining = replicas.find((r) => r.url === held.url)!;
    await draining.stop();
    expect(await lease()).toBeUndefined();
    const rest = replicas.filter((r) => r !== draining);
    const read = await call(rest[0]!.url, "GET", `/v1/boards/${made.body.id}`, { key: A.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(made.body);
    replicas = rest;
  }, 120_000);
});
