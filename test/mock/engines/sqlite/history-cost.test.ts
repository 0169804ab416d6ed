// Issue 29 item 8: a keyed write costs the same after 1,000 remembered keys as after 1, and an OAuth token request
// the same after many grants. Measured by the database, not by time: the pages a commit appends to SQLite's
// write-ahead log (the test checkpoints the log to empty before each measured request, from its own connection).
// Idempotency records and grants are rows of their own (decision DB11), capped and expiring (ID3, DB11).
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import type { Principal } from "../../../../src/mock/core/access/auth.js";
import { DEFAULT_JWT_SECRET } from "../../../../src/mock/index.js";
import { MAX_GRANTS, OAuthTokens, REFRESH_TOKEN_MS, type TokenResponse } from "../../../../src/mock/core/access/oauth.js";
import { MAX_IDEMPOTENCY_KEYS } from "../../../../src/mock/core/store/idempotency-records.js";
import { call, freshKey, getJson, startGateway, startStateful, type TestGateway } from "../../../helpers/mock.js";

const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const open: TestGateway[] = [];
afterEach(async () => {
  for (const g of open.splice(0)) await g.close();
});

function stateFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mock-history-")), "state.db");
}

/** Pages the next commit writes: the log is emptied first (TRUNCATE), then measured after `act`. */
async function pagesWritten(file: string, act: () => Promise<unknown>): Promise<number> {
  const db = new Sqlite(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    await act();
    // The log's size, not its frame count: SQLite may checkpoint a long log by itself right after the commit.
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    return Math.ceil(fs.statSync(`${file}-wal`).size / (pageSize + 24));
  } finally {
    db.close();
  }
}

/**
 * The fewest pages of `n` measured requests in a row (`act(0)` … `act(n - 1)`). An insert now and then splits a
 * B-tree page and writes several more, and grant ids end in random characters, so which insert splits changes from
 * run to run: one measured grant after 500 wrote 7, 10 or 11 pages where the first wrote 3 (the fewest of three: 3
 * and 5). A cost that grows with history grows in every request, so the fewest still shows it (every grant's row
 * written again per commit: 142 pages).
 */
async function fewestPages(file: string, n: number, act: (i: number) => Promise<unknown>): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < n; i++) fewest = Math.min(fewest, await pagesWritten(file, () => act(i)));
  return fewest;
}

const big = "x".repeat(18 * 1024);

describe("a keyed write's cost does not grow with the keys remembered (--state)", () => {
  it("writes as many pages after 1,000 large remembered answers as after 1", async () => {
    const file = stateFile();
    const owner = freshKey("business");
    const g = await startGateway({ stateFile: file, extraKeys: [owner] });
    open.push(g);
    const create = (i: number) => call(g.url, "POST", "/v1/boards", { key: owner.key, body: { name: `Board ${i}` }, headers: { "Idempotency-Key": `k-${i}` } });
    expect((await create(0)).status).toBe(201);
    // Through workspace() each time, as a request does: it marks the workspace changed.
    const records = () => g.gateway.store.workspace(owner.workspace_id).idempotency;
    // One large answer remembered, then measured.
    const at = g.clock.now();
    records().put("large-0", { fingerprint: "f", status: 201, headers: { "Content-Type": "application/json" }, body: Buffer.from(big).toString("base64"), at });
    g.gateway.states.changed();
    const first = await pagesWritten(file, () => create(1));
    // Up to the cap of large answers, then measured again.
    for (let i = 1; i < MAX_IDEMPOTENCY_KEYS; i++) records().put(`large-${i}`, { fingerprint: "f", status: 201, headers: {}, body: Buffer.from(big).toString("base64"), at });
    records();
    g.gateway.states.changed();
    expect(records().size).toBe(MAX_IDEMPOTENCY_KEYS);
    const later = await pagesWritten(file, () => create(2));
    expect(first).toBeGreaterThan(0);
    // The old layout (every record in one field, rewritten per write) wrote ~4,800 pages here.
    expect(later).toBeLessThanOrEqual(first * 2 + 8);
    // The rows are in the database: a restart replays the first key and the last large one.
    await g.close();
    open.length = 0;
    const again = await startGateway({ stateFile: file, extraKeys: [owner] });
    open.push(again);
    const replay = await call(again.url, "POST", "/v1/boards", { key: owner.key, body: { name: "Board 2" }, headers: { "Idempotency-Key": "k-2" } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(again.gateway.store.workspace(owner.workspace_id).idempotency.size).toBe(MAX_IDEMPOTENCY_KEYS);
  }, 60_000);

  it("an OAuth token request writes as many pages after 500 grants as after 1", async () => {
    const file = stateFile();
    // Steps only when the test advances the scheduler: the demo workspace's seeded processing analysis moving on by
    // real timers would write its pages inside a measured request (the suite's run saw 11 pages against 10).
    const g = await startStateful({ stateFile: file });
    open.push(g);
    const fields = (i: number) => ({ grant_type: "authorization_code", client_id: "history-client", code: `ac_history${i}`, code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", redirect_uri: "https://app.example.com/cb" });
    const grant = (i: number) =>
      getJson(`${g.url}/v1/oauth/token`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_business", "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields(i)).toString() });
    expect((await grant(0)).status).toBe(200);
    const first = await fewestPages(file, 3, (i) => grant(1 + i));
    for (let i = 4; i < 500; i++) {
      if (i % 20 === 0) g.clock.advance(61_000); // past the per-minute limit, not the grants' 30 days
      expect((await grant(i)).status).toBe(200);
    }
    g.clock.advance(61_000);
    const later = await fewestPages(file, 3, (i) => grant(500 + i));
    expect(first).toBeGreaterThan(0);
    expect(later).toBeLessThanOrEqual(first * 2 + 4);
  }, 120_000);
});

describe("what grows with history is capped and expires (in memory too)", () => {
  const DAY = 86_400_000;

  it("an Idempotency-Key answer older than the contract's window is forgotten when a newer one is remembered", async () => {
    const owner = freshKey("business");
    const g = await startGateway({ extraKeys: [owner] });
    open.push(g);
    const create = (key: string) => call(g.url, "POST", "/v1/boards", { key: owner.key, body: { name: key }, headers: { "Idempotency-Key": key } });
    expect((await create("old")).status).toBe(201);
    g.clock.advance(DAY); // x-idempotency.window_seconds: 86400
    expect((await create("new")).status).toBe(201);
    const records = g.gateway.store.workspace(owner.workspace_id).idempotency;
    expect([...records.rows.keys()]).toEqual(["new"]);
  });

  it(`OAuth grants: at most ${MAX_GRANTS} live per workspace (the oldest revoked), forgotten when their refresh token expires`, async () => {
    const clock = { t: Date.UTC(2026, 10, 21), now() { return this.t; } };
    const oauth = new OAuthTokens({ secret: DEFAULT_JWT_SECRET, clock, defaultScope: "boards:read" });
    const caller = { workspaceId: "ws_grants0001", plan: "pro", key: null, keyId: null, frozen: false, via: "bearer" } as Principal;
    const other = { ...caller, workspaceId: "ws_grants0002" } as Principal;
    const code = (i: number, who = caller) => oauth.exchange(who, { grant_type: "authorization_code", code: `ac_${who.workspaceId}_${i}`, redirect_uri: "https://app.example/cb", code_verifier: "v".repeat(43), client_id: "app" });
    const otherFirst = (await code(0, other)) as TokenResponse;
    const first = (await code(0)) as TokenResponse;
    for (let i = 1; i <= MAX_GRANTS; i++) await code(i);
    expect(oauth.rows.grants!.size).toBe(MAX_GRANTS + 1); // this workspace's cap, and the other's one grant
    const refresh = (t: TokenResponse, who = caller) => oauth.exchange(who, { grant_type: "refresh_token", refresh_token: t.refresh_token!, client_id: "app" });
    expect(await refresh(first)).toMatchObject({ error: "invalid_grant" });
    expect(oauth.isRevoked(decodeJwt(first.access_token))).toBe(true);
    expect(await refresh(otherFirst, other)).toMatchObject({ token_type: "Bearer" }); // another workspace's grant is not touched
    clock.t += REFRESH_TOKEN_MS + 1;
    await code(MAX_GRANTS + 1);
    expect(oauth.rows.grants!.size).toBe(1);
    expect(oauth.rows.refresh!.size).toBe(1);
    expect(oauth.rows.used_codes!.size).toBe(1);
    expect(oauth.rows.revoked_grants!.size).toBe(0);
  });
});

describe("a state database of format 1", () => {
  it("is read: its one-field Idempotency-Key answers replay, and become rows with the next change", async () => {
    const file = stateFile();
    const owner = freshKey("business");
    const a = await startGateway({ stateFile: file, extraKeys: [owner] });
    const create = (url: string, key: string) => call(url, "POST", "/v1/boards", { key: owner.key, body: { name: key }, headers: { "Idempotency-Key": key } });
    expect((await create(a.url, "k1")).status).toBe(201);
    await a.close();
    // Written back as format 1 held it: the answers as one field row, no entries.
    const db = new Sqlite(file);
    const rows = db.prepare("SELECT key, value FROM entries WHERE owner = ? AND name = 'idempotency'").all(owner.workspace_id) as Array<{ key: string; value: string }>;
    const field = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
    db.prepare("INSERT INTO fields (ws, name, value) VALUES (?, 'idempotency', ?)").run(owner.workspace_id, JSON.stringify(field));
    db.exec("DELETE FROM entries; UPDATE meta SET value = '1' WHERE key = 'version'");
    db.close();
    const b = await startGateway({ stateFile: file, extraKeys: [owner], clock: a.clock });
    open.push(b);
    expect((await create(b.url, "k1")).headers.get("idempotent-replayed")).toBe("true");
    expect((await create(b.url, "k2")).status).toBe(201);
    const after = new Sqlite(file, { readonly: true });
    try {
      expect(after.prepare("SELECT key FROM entries WHERE owner = ? ORDER BY rowid").pluck().all(owner.workspace_id)).toEqual(["k1", "k2"]);
      expect(after.prepare("SELECT count(*) FROM fields WHERE name = 'idempotency'").pluck().get()).toBe(0);
      expect(after.prepare("SELECT value FROM meta WHERE key = 'version'").pluck().get()).toBe("2");
    } finally {
      after.close();
    }
  });
});

describe("what a migration killed midway left", () => {
  it("FILE.migrating-<pid> and its log files are removed at the next start", async () => {
    const file = stateFile();
    const dir = path.dirname(file);
    for (const f of [".migrating-999999", ".migrating-999999-wal", ".migrating-999999-shm"]) fs.writeFileSync(file + f, "half a database");
    fs.writeFileSync(`${file}.migrating-notes`, "not ours"); // not a leftover's name: left alone
    const g = await startGateway({ stateFile: file });
    open.push(g);
    expect(fs.readdirSync(dir).filter((f) => f.includes("migrating")).sort()).toEqual(["state.db.migrating-notes"]);
  });
});

describe("the state file's own checks (DB1)", () => {
  it("a pre-existing empty file becomes a database of mode 0600; a dangling link is refused, its target not created", async () => {
    const file = stateFile();
    fs.writeFileSync(file, "", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const g = await startGateway({ stateFile: file });
    await g.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const linked = stateFile();
    const target = path.join(path.dirname(linked), "elsewhere.db");
    fs.symlinkSync(target, linked);
    await expect(startGateway({ stateFile: linked })).rejects.toThrow(/symbolic link/);
    expect(fs.existsSync(target)).toBe(false);
  });
});
