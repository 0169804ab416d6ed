// The state database (state-db.ts; --state, MOCK_STATE_FILE): what the mock keeps survives a restart; every
// acknowledged change is in the database before its answer; writes are a row per change; a bad record refuses the
// start naming it; a JSON state file of earlier versions is migrated once (state-file.ts).
import { DEFAULT_LIMITS } from "../../../../src/mock/core/access/limits.js";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError } from "../../../../src/mock/index.js";
import { seededKeyId } from "../../../../src/mock/core/access/keys.js";
import { StateDb } from "../../../../src/mock/engines/sqlite/state-db.js";
import { StateRegistry } from "../../../../src/mock/core/state/state-registry.js";
import { Store } from "../../../../src/mock/core/store/store.js";
import { systemClock } from "../../../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { apiKey, call, contract, freshKey, getJson, startGateway, startStateful, STEP_MS, T0 } from "../../../helpers/mock.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-state-db-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (ext = "db") => path.join(dir, `state-${++n}.${ext}`);
const json = { ...apiKey("pk_test_demo_business"), "Content-Type": "application/json" };
const post = (url: string, body: unknown) => getJson(url, { method: "POST", headers: json, body: JSON.stringify(body) });
const form = (url: string, fields: Record<string, string>) =>
  getJson(url, { method: "POST", headers: { ...apiKey("pk_test_demo_business"), "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
/** Reads the database as another process would, while the mock has it open. */
const rows = (file: string, sql: string, ...args: unknown[]) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all(...args) as any[];
  } finally {
    db.close();
  }
};
const edit = (file: string, sql: string, ...args: unknown[]) => {
  const db = new Database(file);
  db.prepare(sql).run(...args);
  db.close();
};

// A key the gateway starts with, not a demo key: those cannot be revoked (decision SH10).
const startedWith = freshKey("free");

describe("state database", () => {
  it("does not keep fault rules or a paused clock: a restart starts them as a reset does (decision RM19)", async () => {
    const file = fresh();
    const ctl = async (url: string, what: string, body?: unknown) => (await getJson(`${url}/__mock/${what}`, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).body;
    const a = await startGateway({ stateFile: file });
    expect(await ctl(a.url, "clock", { action: "pause" })).toMatchObject({ paused: true });
    await ctl(a.url, "faults", { operationId: "createBoard", status: 503, times: 5 });
    const board = (await post(`${a.url}/v1/boards`, { name: "Kept board" })).status;
    expect(board).toBe(503);
    await ctl(a.url, "faults", { operationId: "getBoard", status: 500, times: 5 });
    await a.close();

    const b = await startGateway({ stateFile: file });
    try {
      expect((await ctl(b.url, "faults")).rules).toEqual([]);
      expect(await ctl(b.url, "clock")).toMatchObject({ paused: false });
      expect((await post(`${b.url}/v1/boards`, { name: "Made after the restart" })).status).toBe(201);
    } finally {
      await b.close();
    }
  });

  it("docs/frontend.md says so in the --state row", () => {
    const row = fs.readFileSync(path.join(import.meta.dirname, "../../../../docs/frontend.md"), "utf8").split("\n").find((l) => l.startsWith("| `--state FILE`"))!;
    expect(row).toContain("not the fault rules or the clock");
  });

  it("keeps keys, webhooks, tokens, revocations and stored resources across a restart", async () => {
    const file = fresh();
    const a = await startGateway({ stateFile: file, extraKeys: [startedWith] });
    const key = (await post(`${a.url}/v1/keys`, { name: "kept", environment: "test", rate_limit_rpm: 7 })).body;
    const hook = (await post(`${a.url}/v1/webhooks`, { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] })).body;
    const board = (await post(`${a.url}/v1/boards`, { name: "Kept board" })).body;
    const tokens = (await form(`${a.url}/v1/oauth/token`, { grant_type: "authorization_code", code: "ac_kept", redirect_uri: "https://app.example/cb", code_verifier: "v".repeat(43), client_id: "app" })).body;
    const access = (await form(`${a.url}/v1/oauth/token`, { grant_type: "client_credentials", client_id: "app" })).body.access_token;
    await form(`${a.url}/v1/oauth/revoke`, { token: access });
    await getJson(`${a.url}/v1/keys/${seededKeyId(startedWith.key)}`, { method: "DELETE", headers: apiKey(startedWith.key) });
    await a.close();

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file).subarray(0, 15).toString()).toBe("SQLite format 3");
    expect(rows(file, "SELECT name FROM parts ORDER BY name").map((r) => r.name)).toEqual(["keys", "webhooks"]);
    // OAuth's state grows with history: a row per grant, token, code and revocation (DB11), not a part.
    expect(rows(file, "SELECT DISTINCT name FROM entries WHERE owner = '' ORDER BY name").map((r) => r.name)).toEqual(["oauth/grants", "oauth/refresh", "oauth/revoked_tokens", "oauth/used_codes"]);

    const b = await startGateway({ stateFile: file, clock: a.clock, extraKeys: [startedWith] });
    try {
      const used = await getJson(`${b.url}/v1/analyses`, { headers: apiKey(key.secret) });
      expect([used.status, used.headers.get("x-ratelimit-limit")]).toEqual([200, "7"]);
      expect((await getJson(`${b.url}/v1/keys/${key.id}`, { headers: json })).body).toMatchObject({ name: "kept", rate_limit_rpm: 7 });
      expect((await getJson(`${b.url}/v1/webhooks/${hook.id}`, { headers: json })).body).toMatchObject({ url: hook.url, created_at: hook.created_at });
      expect((await getJson(`${b.url}/v1/boards/${board.id}`, { headers: json })).body).toEqual(board);
      expect((await form(`${b.url}/v1/oauth/token`, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "app" })).status).toBe(200);
      expect((await getJson(`${b.url}/v1/analyses`, { headers: { Authorization: `Bearer ${access}` } })).body.error).toBe("token_revoked");
      expect((await getJson(`${b.url}/v1/analyses`, { headers: apiKey(startedWith.key) })).body.error).toBe("key_revoked");
    } finally {
      await b.close();
    }
  });

  it("has every acknowledged change in the database before its answer, a row per change, and forgets all on reset", async () => {
    const file = fresh();
    const g = await startGateway({ stateFile: file });
    try {
      const board = (await post(`${g.url}/v1/boards`, { name: "Committed" })).body;
      // Read at once by another connection, the mock still running: the row is there.
      const [row] = rows(file, "SELECT ws, coll, value FROM records WHERE key = ?", board.id);
      expect(row).toMatchObject({ coll: "Board" });
      expect(JSON.parse(row.value)).toEqual(board);
      const patched = (await getJson(`${g.url}/v1/boards/${board.id}`, { method: "PATCH", headers: json, body: JSON.stringify({ name: "Renamed" }) })).body;
      expect(JSON.parse(rows(file, "SELECT value FROM records WHERE key = ?", board.id)[0].value)).toEqual(patched);
      await getJson(`${g.url}/v1/boards/${board.id}`, { method: "DELETE", headers: json });
      expect(rows(file, "SELECT key FROM records WHERE key = ?", board.id)).toEqual([]);
      const before = rows(file, "SELECT count(*) AS n FROM records")[0].n;
      expect(before).toBeGreaterThan(1); // the workspace's seeded records, written whole with its first change
      await fetch(`${g.url}/__mock/reset`, { method: "POST" });
      expect(rows(file, "SELECT count(*) AS n FROM records")[0].n).toBe(0);
    } finally {
      await g.close();
    }
  });

  it("writes only what changed: one record row for one change, whatever the workspace holds", async () => {
    const file = fresh();
    // Steps only when the test advances the clock (a ManualClock's timers are real, whatever its time): a
    // seeded analysis moving on by itself would change (and write) the workspace that is only read below, on a slow
    // run (the fresh clone's CI failed so).
    const g = await startStateful({ stateFile: file });
    try {
      for (let i = 0; i < 20; i++) await post(`${g.url}/v1/boards`, { name: `Board ${i}` });
      const ids = rows(file, "SELECT key FROM records WHERE coll = 'Board'").map((r) => r.key);
      // Tamper with every stored board but one behind the mock's back; a change to that one must leave them be.
      const one = ids[0];
      edit(file, "UPDATE records SET extra = '{\"mark\":1}' WHERE coll = 'Board' AND key != ?", one);
      await getJson(`${g.url}/v1/boards/${one}`, { method: "PATCH", headers: json, body: JSON.stringify({ name: "Only me" }) });
      expect(rows(file, "SELECT count(*) AS n FROM records WHERE extra = '{\"mark\":1}'")[0].n).toBe(ids.length - 1);
      // A workspace only read is never written (a GET with any minted token would otherwise fill the file).
      await getJson(`${g.url}/v1/boards`, { headers: apiKey("pk_test_demo_free") });
      await post(`${g.url}/v1/boards`, { name: "After the read" });
      const free = g.gateway.keys.list().find((k) => k.key === "pk_test_demo_free")!.workspace_id;
      expect(rows(file, "SELECT count(*) AS n FROM records WHERE ws = ?", free)[0].n).toBe(0);
    } finally {
      await g.close();
    }
  });

  it("answers 500, and keeps nothing it acknowledged unwritten, when a change cannot be written", async () => {
    const file = fresh();
    const g = await startGateway({ stateFile: file });
    try {
      g.gateway.states.onCommit(() => {
        throw new Error("disk full");
      });
      const res = await post(`${g.url}/v1/boards`, { name: "Not acknowledged" });
      expect(res.status).toBe(500);
      expect(g.logs.some((l) => l.includes("internal error on POST /v1/boards") && l.includes("disk full"))).toBe(true);
      expect((await getJson(`${g.url}/v1/boards`, { headers: json })).status).toBe(200); // still serving
    } finally {
      await g.close();
    }
  });

  it("refuses a record the contract does not allow, naming workspace, collection, id and the rule, and leaves the file as it is", async () => {
    const file = fresh();
    const a = await startGateway({ stateFile: file });
    const board = (await post(`${a.url}/v1/boards`, { name: "Soon broken" })).body;
    await a.close();
    const [{ ws, value }] = rows(file, "SELECT ws, value FROM records WHERE key = ?", board.id);
    edit(file, "UPDATE records SET value = ? WHERE key = ?", JSON.stringify({ ...JSON.parse(value), name: 42 }), board.id);
    const bytes = fs.readFileSync(file);
    await expect(startGateway({ stateFile: file })).rejects.toThrow(new StateFileError(`${file}: workspace ${ws}, collection Board, id ${board.id}: /name: must be string, as the contract's Board says`));
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);

    // A value nested 50,000 deep (it once loaded, then broke GET and PATCH) is refused before anything parses it.
    const deep = '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000);
    edit(file, "UPDATE records SET value = ? WHERE key = ?", deep, board.id);
    await expect(startGateway({ stateFile: file })).rejects.toThrow(`${file}: workspace ${ws}, collection Board, id ${board.id}: nested deeper than 64 levels`);
    edit(file, "UPDATE records SET coll = 'Nothing' WHERE key = ?", board.id);
    await expect(startGateway({ stateFile: file })).rejects.toThrow("collection Nothing, id");
  });

  it("refuses a file that is neither a state database nor JSON, and a folder that does not exist", async () => {
    const file = fresh();
    fs.writeFileSync(file, "SQLite format 3\u0000 but nothing else");
    await expect(startGateway({ stateFile: file })).rejects.toThrow(`${file}: not a state database this mock can read`);
    const nowhere = path.join(dir, "no-such-folder", "state.db");
    await expect(startGateway({ stateFile: nowhere })).rejects.toThrow(`${nowhere}: its folder does not exist`);
  });

  it("never follows a link planted where the JSON state file wrote its temporary file", async () => {
    const file = fresh();
    const victim = path.join(dir, "victim.txt");
    fs.writeFileSync(victim, "untouched");
    fs.symlinkSync(victim, path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`));
    const g = await startGateway({ stateFile: file });
    try {
      await post(`${g.url}/v1/boards`, { name: "Through the link?" });
      await post(`${g.url}/v1/keys`, { name: "x", environment: "test" });
    } finally {
      await g.close();
    }
    expect(fs.readFileSync(victim, "utf8")).toBe("untouched");
    // SQLite's own files beside the database are opened by name: a link planted there refuses the start.
    const other = fresh();
    fs.symlinkSync(victim, `${other}-wal`);
    await expect(startGateway({ stateFile: other })).rejects.toThrow(`${other}-wal is a symbolic link`);
    expect(fs.readFileSync(victim, "utf8")).toBe("untouched");
    await expect(startGateway({ stateFile: dir })).rejects.toThrow(`${dir}: cannot open the state database (EISDIR`); // the lock by identity (DB10) opens it first, and names why
  });

  it("keeps a part registered with one line, and a field a feature adds to the workspace, without code of their own", async () => {
    const file = fresh();
    const a = await startGateway({ stateFile: file });
    const part = { name: "extra", n: 0, restored: null as unknown, reset: () => {}, snapshot: () => ({ n: part.n }), restore: (v: unknown) => void (part.restored = v) };
    a.gateway.states.register(part);
    part.n = 5;
    const ws = a.gateway.store.workspace("ws_northwind01") as unknown as Record<string, unknown>;
    ws.remembered = new Map([["idem_1", { status: 201 }]]);
    await post(`${a.url}/v1/boards`, { name: "A change to commit" });
    await a.close();

    const b = await startGateway({ stateFile: file });
    try {
      const again = { ...part, restored: null as unknown, restore: (v: unknown) => void (again.restored = v) };
      b.gateway.states.register(again);
      expect(rows(file, "SELECT value FROM parts WHERE name = 'extra'")[0].value).toBe('{"n":5}');
      const back = b.gateway.store.workspace("ws_northwind01") as unknown as Record<string, unknown>;
      expect(back.remembered).toEqual(new Map([["idem_1", { status: 201 }]]));
    } finally {
      await b.close();
    }
  });

  it("keeps what a lifecycle's steps write by themselves: status, transcript, sub-records, and the same event log (ids and all) for a stream to resume", async () => {
    const file = fresh();
    const a = await startStateful({ stateFile: file });
    const created = await call(a.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio", features: ["transcription", "diarization", "signals"], use_case_id: "uc_01HZX1C4S8E2K6M0P3R7T9V5W1" } });
    const id = created.body.id;
    a.clock.advance(STEP_MS * 3);
    const done = (await call(a.url, "GET", `/v1/analyses/${id}`)).body;
    const transcript = (await call(a.url, "GET", `/v1/analyses/${id}/transcript`)).body;
    const signals = (await call(a.url, "GET", `/v1/analyses/${id}/signals`)).body.data;
    const ws = a.gateway.keys.list().find((k) => k.key === "pk_test_demo_pro")!.workspace_id;
    const log = a.gateway.store.eventLog(ws, id)!.events;
    await a.close();
    expect(done.status).toBe("completed");
    expect(signals.length).toBeGreaterThan(0);

    const b = await startStateful({ stateFile: file });
    try {
      expect((await call(b.url, "GET", `/v1/analyses/${id}`)).body).toEqual(done);
      expect((await call(b.url, "GET", `/v1/analyses/${id}/transcript`)).body).toEqual(transcript);
      expect((await call(b.url, "GET", `/v1/analyses/${id}/signals`)).body.data).toEqual(signals);
      expect(b.gateway.store.eventLog(ws, id)!.events).toEqual(log);
    } finally {
      await b.close();
    }
  });

  it("keeps remembered Idempotency-Key answers across a restart (a workspace field with its own kind)", async () => {
    const file = fresh();
    const a = await startGateway({ stateFile: file });
    const headers = { ...json, "Idempotency-Key": "restart-key-1" };
    const body = JSON.stringify({ name: "Created once" });
    const first = await getJson(`${a.url}/v1/boards`, { method: "POST", headers, body });
    expect(first.status).toBe(201);
    await a.close();
    const b = await startGateway({ stateFile: file, clock: a.clock });
    try {
      const again = await getJson(`${b.url}/v1/boards`, { method: "POST", headers, body });
      expect([again.status, again.headers.get("idempotent-replayed"), again.body.id]).toEqual([201, "true", first.body.id]);
      const other = await getJson(`${b.url}/v1/boards`, { method: "POST", headers, body: JSON.stringify({ name: "Another" }) });
      expect([other.status, other.body.error]).toEqual([422, "idempotency_key_reused"]);
    } finally {
      await b.close();
    }
  });

  it("lets a workspace leave memory and reads it back when next used: remembered workspaces need no eviction", () => {
    const file = fresh();
    const clock = new SimulatedClock(systemClock, { frozenAt: T0 });
    const store = new Store({ contract, clock, stepMs: 100, webhooks: { emit: () => {} }, limits: { ...DEFAULT_LIMITS, workspaces: 2 } });
    const registry = new StateRegistry();
    registry.register(store);
    const db = StateDb.open(file, registry, { contract });
    const boards = store.model.collections.get("Board")!;
    const first = store.workspace("ws_first0001");
    const rec = store.insert(first, boards, null, { ...structuredClone(store.template(null, boards)), id: "brd_kept0001", name: "Still here" });
    registry.commit();
    store.workspace("ws_second001");
    store.workspace("ws_third0001"); // a third: the first leaves memory
    expect((store as unknown as { workspaces: Map<string, unknown> }).workspaces.has("ws_first0001")).toBe(false);
    const back = store.workspace("ws_first0001");
    expect(back).not.toBe(first);
    expect(back.table(boards).get(null, "brd_kept0001")?.value).toEqual(rec.value);
    db.close();
  });
});

describe("a JSON state file of earlier versions", () => {
  const v1 = (states: Record<string, unknown>) => JSON.stringify({ version: 1, saved_at: "2026-11-01T00:00:00Z", states }, null, 2);

  it("is read once and migrated into a database; the JSON is kept beside it", async () => {
    const file = fresh("json");
    const a = await startGateway({ stateFile: fresh() });
    const board = (await post(`${a.url}/v1/boards`, { name: "From JSON" })).body;
    const store = a.gateway.store.snapshot();
    const keys = a.gateway.keys.snapshot();
    await a.close();
    const text = v1({ store, keys, extra: { kept: true } });
    fs.writeFileSync(file, text);

    const b = await startGateway({ stateFile: file });
    try {
      expect(b.logs.some((l) => l.includes(`state file ${file} migrated from JSON to a SQLite database; the JSON is kept as ${file}.json-v1`))).toBe(true);
      expect((await getJson(`${b.url}/v1/boards/${board.id}`, { headers: json })).body).toEqual(board);
    } finally {
      await b.close();
    }
    expect(fs.readFileSync(`${file}.json-v1`, "utf8")).toBe(text);
    expect(fs.readFileSync(file).subarray(0, 15).toString()).toBe("SQLite format 3");
    expect(rows(file, "SELECT value FROM parts WHERE name = 'extra'")[0].value).toBe('{"kept":true}');
    const c = await startGateway({ stateFile: file });
    try {
      expect(c.logs.some((l) => l.includes("migrated"))).toBe(false);
      expect((await getJson(`${c.url}/v1/boards/${board.id}`, { headers: json })).body).toEqual(board);
    } finally {
      await c.close();
    }
  });

  it("refuses invalid JSON, a bad part and a schema-invalid record, naming where, and leaves the file as it was", async () => {
    const file = fresh("json");
    const text = '{"version": 1,\n  "states": {,}\n}';
    fs.writeFileSync(file, text);
    await expect(startGateway({ stateFile: file })).rejects.toThrow(new StateFileError(`${file}:2:14: invalid JSON: Expected property name or '}'`));
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    for (const [bad, where] of [
      ['{"version": 2, "states": {}}', ":1:13: version: must be 1"],
      ['{"version": 1, "states": []}', ":1:26: states: must be an object"],
      ['{"version": 1, "states": {"keys": {"started_at": "yesterday", "seeded": {}, "created": []}}}', ":1:50: states.keys.started_at: must be a string matching"],
    ] as const) {
      fs.writeFileSync(file, bad);
      await expect(startGateway({ stateFile: file }), bad).rejects.toThrow(file + where);
      expect(fs.readFileSync(file, "utf8")).toBe(bad);
    }
    // A record the contract does not allow once loaded silently (issue 20): refused, naming it; nothing migrated.
    const a = await startGateway({ stateFile: fresh() });
    const board = (await post(`${a.url}/v1/boards`, { name: "Bad later" })).body;
    const store = a.gateway.store.snapshot() as any;
    await a.close();
    const ws = Object.keys(store.workspaces)[0]!;
    store.workspaces[ws].records.find((r: any) => r.value.id === board.id).value.name = 42;
    fs.writeFileSync(file, v1({ store }));
    await expect(startGateway({ stateFile: file })).rejects.toThrow(`${file}: workspace ${ws}, collection Board, id ${board.id}: /name: must be string`);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).states.store.workspaces[ws]).toBeDefined();
    expect(fs.readdirSync(dir).filter((f) => f.includes("migrating"))).toEqual([]);
    const deep = `{"version": 1, "states": {"extra": ${"[".repeat(50_000)}${"]".repeat(50_000)}}}`;
    fs.writeFileSync(file, deep);
    await expect(startGateway({ stateFile: file })).rejects.toThrow(`${file}: nested deeper than 80 levels`);
  });
});
