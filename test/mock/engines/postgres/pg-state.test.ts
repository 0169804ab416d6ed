// State shared by replicas on PostgreSQL (decisions SB5-SB7, SB9): 3 gateway processes with `--state postgres://…`
// on one real PostgreSQL (Debian's, started by the test on loopback), over real HTTP: a write through one is read
// through the others at once, one Idempotency-Key over the replicas makes one resource, workspaces stay apart, a
// key made on one replica authenticates on another, and a replica that loses the database answers 503 and recovers;
// each with every replica holding every workspace, and with workspace ownership (`--ownership`, SB29).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres, startPostgres, type Engine } from "../../../../scripts/lib/engines.js";
import { call } from "../../../helpers/mock.js";
import { keysFile, startReplica, type Replica } from "../../../../scripts/lib/replicas.js";

const skip = missingPostgres();
const A = { key: "pk_test_pg_alpha", workspace_id: "ws_PgAlpha0001", plan: "pro" };
const B = { key: "pk_test_pg_bravo", workspace_id: "ws_PgBravo0001", plan: "pro" };

/** Both designs: every replica holding every workspace (SB5–SB21), and workspace ownership (`--ownership`, SB29). */
const MODES: ReadonlyArray<[string, string[]]> = [
  ["replicated", []],
  ["ownership", ["--ownership"]],
];

describe.skipIf(skip !== null).each(MODES)(skip ?? "state shared by replicas on PostgreSQL (%s)", (mode, flags) => {
  let db: Engine;
  const replicas: Replica[] = [];
  const urls = () => replicas.map((r) => r.url);

  beforeAll(async () => {
    db = await startPostgres();
    const keys = keysFile([A, B]);
    replicas.push(await startReplica(["--state", db.url, "--keys", keys, ...flags]));
    replicas.push(...(await Promise.all([1, 2].map(() => startReplica(["--state", db.url, "--keys", keys, ...flags])))));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
  });

  it("a board created through one replica is read through the two others at once, and listed there", async () => {
    for (let i = 0; i < 10; i++) {
      const [a, b, c] = i % 2 ? [urls()[1]!, urls()[2]!, urls()[0]!] : urls();
      const made = await call(a!, "POST", "/v1/boards", { key: A.key, body: { name: `rw-${i}`, widgets: [] } });
      expect(made.status).toBe(201);
      const [onB, onC] = await Promise.all([call(b!, "GET", `/v1/boards/${made.body.id}`, { key: A.key }), call(c!, "GET", `/v1/boards/${made.body.id}`, { key: A.key })]);
      expect([onB.status, onC.status]).toEqual([200, 200]);
      expect(onB.body.name).toBe(`rw-${i}`);
      expect(onC.body).toEqual(onB.body);
    }
    const listed = await call(urls()[2]!, "GET", "/v1/boards?limit=100", { key: A.key });
    expect(listed.body.data.filter((b: { name: string }) => b.name.startsWith("rw-"))).toHaveLength(10);
  }, 60_000);

  it("an update and a delete through one replica are seen by the others at once", async () => {
    const made = await call(urls()[0]!, "POST", "/v1/boards", { key: A.key, body: { name: "to-change", widgets: [] } });
    expect((await call(urls()[1]!, "PATCH", `/v1/boards/${made.body.id}`, { key: A.key, body: { name: "changed" } })).status).toBe(200);
    expect((await call(urls()[2]!, "GET", `/v1/boards/${made.body.id}`, { key: A.key })).body.name).toBe("changed");
    expect((await call(urls()[2]!, "DELETE", `/v1/boards/${made.body.id}`, { key: A.key })).status).toBe(204);
    expect((await call(urls()[0]!, "GET", `/v1/boards/${made.body.id}`, { key: A.key })).status).toBe(404);
  }, 30_000);

  it("50 concurrent creates with one Idempotency-Key, spread over the replicas, make exactly one board", async () => {
    const key = `idem-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call(urls()[i % 3]!, "POST", "/v1/boards", { key: A.key, body: { name: "once", widgets: [] }, headers: { "Idempotency-Key": key } })),
    );
    const created = answers.filter((a) => a.status === 201);
    // Each answer is the first one or its replay (409 only while the first is being processed on the same replica).
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    expect(created.filter((a) => a.headers.get("Idempotent-Replayed") !== "true")).toHaveLength(1);
    const listed = await call(urls()[1]!, "GET", "/v1/boards?limit=100", { key: A.key });
    expect(listed.body.data.filter((b: { name: string }) => b.name === "once")).toHaveLength(1);
  }, 60_000);

  it("workspaces stay apart across replicas: another workspace's board is 404 on every replica and never listed", async () => {
    const mine = await call(urls()[0]!, "POST", "/v1/boards", { key: A.key, body: { name: "alpha-only", widgets: [] } });
    for (const url of urls()) {
      expect((await call(url, "GET", `/v1/boards/${mine.body.id}`, { key: B.key })).status).toBe(404);
      const theirs = await call(url, "GET", "/v1/boards?limit=100", { key: B.key });
      expect(theirs.body.data.some((b: { name: string }) => b.name === "alpha-only")).toBe(false);
    }
  }, 30_000);

  it("an API key created through one replica authenticates through the others at once", async () => {
    const made = await call(urls()[0]!, "POST", "/v1/keys", { key: A.key, body: { name: "made on A", environment: "test" } });
    expect(made.status).toBe(201);
    const secret = made.body.key ?? made.body.secret;
    expect(typeof secret).toBe("string");
    for (const url of urls().slice(1)) expect((await call(url, "GET", "/v1/boards?limit=1", { key: secret })).status).toBe(200);
  }, 30_000);

  it.skipIf(mode === "ownership")("the rows are in PostgreSQL: records, and a version per workspace bumped by each commit", async () => {
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      const rows = await client.query("SELECT count(*)::int AS n FROM records WHERE ws = $1 AND coll = 'Board'", [A.workspace_id]);
      expect(rows.rows[0].n).toBeGreaterThan(10);
      const v = await client.query("SELECT v FROM versions WHERE scope = $1", [A.workspace_id]);
      expect(Number(v.rows[0].v)).toBeGreaterThan(10);
    } finally {
      await client.end();
    }
  });

  it("/health reports the database; without it a request answers 503 with Retry-After, and it recovers by itself", async () => {
    const ok = await call(urls()[0]!, "GET", "/health", { key: A.key });
    expect(ok.body.dependencies).toEqual({ postgres: "ok" });
    await db.pause();
    try {
      // With ownership the owner answers a read from memory without the database (SB29): a write needs it.
      const down = mode === "ownership" ? await call(urls()[0]!, "POST", "/v1/boards", { key: A.key, body: { name: "no database", widgets: [] } }) : await call(urls()[0]!, "GET", "/v1/boards?limit=1", { key: A.key });
      expect(down.status).toBe(503);
      expect(down.body.error).toBe("dependency_unavailable");
      expect(down.headers.get("Retry-After")).toBe("2");
      // The replica finds out by its ping (every second) or by a failed query.
      let health = await call(urls()[1]!, "GET", "/health", { key: A.key });
      for (let i = 0; i < 50 && health.status !== 503; i++) {
        await new Promise((r) => setTimeout(r, 200));
        health = await call(urls()[1]!, "GET", "/health", { key: A.key });
      }
      expect(health.status).toBe(503);
      expect(health.body.dependencies).toEqual({ postgres: "down" });
    } finally {
      await db.restart();
    }
    let back = 0;
    for (let i = 0; i < 150 && back !== 200; i++) {
      back = (await call(urls()[0]!, "GET", "/v1/boards?limit=1", { key: A.key })).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(back).toBe(200);
  }, 60_000);
});
