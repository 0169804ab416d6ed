// docs/sandbox.md "Backing up and restoring", run as written: `pg_dump` of a sandbox's database taken while a
// replica serves writes, restored with `pg_restore` into an empty database, serves every record acknowledged before
// the dump to a replica started on it, with no migration (the schema's version travels in `meta`). Real PostgreSQL
// (Debian's pg_dump and pg_restore), real gateway processes.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPostgres, postgresBin, startPostgres, type Engine } from "../../../scripts/lib/engines.js";
import { ROOT } from "../../../scripts/lib/paths.js";
import { keysFile, startReplica, type Replica } from "../../../scripts/lib/replicas.js";
import { call } from "../../helpers/mock.js";

const skip = missingPostgres();
const DOC = fs.readFileSync(path.join(ROOT, "docs/sandbox.md"), "utf8");
const A = { key: "pk_test_backup_alpha", workspace_id: "ws_Backup00001", plan: "pro" };

describe.skipIf(skip !== null)(skip ?? "pg_dump and pg_restore of a running sandbox", () => {
  let db: Engine;
  const replicas: Replica[] = [];
  let keys: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-backup-"));

  beforeAll(async () => {
    db = await startPostgres();
    keys = keysFile([A]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("restores every record acknowledged before the dump, taken under writes, and a replica serves them unmigrated", async () => {
    // The doc's commands, with this test's URLs.
    expect(DOC).toContain("pg_dump --format=custom --file=sandbox.dump postgres://");
    expect(DOC).toContain("pg_restore --dbname=postgres://");
    const source = await startReplica(["--state", db.url, "--keys", keys, "--limit-scale", "1000"]);
    replicas.push(source);
    const before: string[] = [];
    for (let i = 0; i < 20; i++) {
      const made = await call(source.url, "POST", "/v1/boards", { key: A.key, body: { name: `before-${i}`, widgets: [] } });
      expect(made.status).toBe(201);
      before.push(made.body.id);
    }
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) expect((await call(source.url, "POST", "/v1/boards", { key: A.key, body: { name: `during-${i}`, widgets: [] } })).status).toBe(201);
    })();
    const dump = path.join(dir, "sandbox.dump");
    const taken = spawnSync(path.join(postgresBin()!, "pg_dump"), ["--format=custom", `--file=${dump}`, db.url], { encoding: "utf8" });
    writing = false;
    await writer;
    expect(taken.status, taken.stderr).toBe(0);

    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query("CREATE DATABASE restored");
    await admin.end();
    const restoredUrl = db.url.replace(/\/postgres$/, "/restored");
    const restored = spawnSync(path.join(postgresBin()!, "pg_restore"), [`--dbname=${restoredUrl}`, "--no-owner", dump], { encoding: "utf8" });
    expect(restored.status, restored.stderr).toBe(0);

    const back = await startReplica(["--state", restoredUrl, "--keys", keys]);
    replicas.push(back);
    for (const id of before) expect((await call(back.url, "GET", `/v1/boards/${id}`, { key: A.key })).status).toBe(200);
    // It takes writes: the restored database is a sandbox of its own.
    expect((await call(back.url, "POST", "/v1/boards", { key: A.key, body: { name: "after", widgets: [] } })).status).toBe(201);
  }, 180_000);
});
