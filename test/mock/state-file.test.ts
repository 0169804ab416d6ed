// The state file (state-file.ts; --state, MOCK_STATE_FILE): what the mock keeps survives a restart; a malformed
// file stops the start with its location and is never overwritten; writes are atomic and come after changes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { StateFileError } from "../../src/mock/index.js";
import { seededKeyId } from "../../src/mock/keys.js";
import { apiKey, freshKey, getJson, startGateway } from "./helpers.js";

// A key the gateway starts with, not a demo key: those cannot be revoked (decision SH10).
const startedWith = freshKey("free");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-state-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(dir, `state-${++n}.json`);
const json = { ...apiKey("pk_test_demo_business"), "Content-Type": "application/json" };
const post = (url: string, body: unknown) => getJson(url, { method: "POST", headers: json, body: JSON.stringify(body) });
const form = (url: string, fields: Record<string, string>) =>
  getJson(url, { method: "POST", headers: { ...apiKey("pk_test_demo_business"), "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

describe("state file", () => {
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
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(saved.version).toBe(1);
    expect(Object.keys(saved.states).sort()).toEqual(["keys", "oauth", "store", "webhooks"]);

    const b = await startGateway({ stateFile: file, clock: a.clock, extraKeys: [startedWith] });
    try {
      const used = await getJson(`${b.url}/v1/analyses`, { headers: apiKey(key.secret) });
      expect([used.status, used.headers.get("x-ratelimit-limit")]).toEqual([200, "7"]);
      expect((await getJson(`${b.url}/v1/keys/${key.id}`, { headers: json })).body).toMatchObject({ name: "kept", rate_limit_rpm: 7 });
      expect((await getJson(`${b.url}/v1/webhooks/${hook.id}`, { headers: json })).body).toMatchObject({ url: hook.url, created_at: hook.created_at });
      expect((await getJson(`${b.url}/v1/boards/${board.id}`, { headers: json })).body).toEqual(board);
      expect((await form(`${b.url}/v1/oauth/token`, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "app" })).status).toBe(200);
      expect((await form(`${b.url}/v1/oauth/token`, { grant_type: "authorization_code", code: "ac_kept", redirect_uri: "https://app.example/cb", code_verifier: "v".repeat(43), client_id: "app" })).body.error).toBe("invalid_grant");
      expect((await getJson(`${b.url}/v1/analyses`, { headers: { Authorization: `Bearer ${access}` } })).body.error).toBe("token_revoked");
      expect((await getJson(`${b.url}/v1/analyses`, { headers: apiKey(startedWith.key) })).body.error).toBe("key_revoked");
    } finally {
      await b.close();
    }
  });

  it("is written soon after a change, atomically (a new file renamed over the old one), and after a reset", async () => {
    const file = fresh();
    const g = await startGateway({ stateFile: file, stateWriteDelayMs: 10 });
    try {
      expect(fs.existsSync(file)).toBe(false); // nothing changed yet: nothing written
      const key = (await post(`${g.url}/v1/keys`, { name: "one", environment: "test" })).body;
      await vi.waitFor(() => expect(fs.readFileSync(file, "utf8")).toContain(key.id));
      const inode = fs.statSync(file).ino;
      const fd = fs.openSync(file, "r"); // the old file, as a reader holds it
      const old = fs.readFileSync(file, "utf8");
      await post(`${g.url}/v1/webhooks`, { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] });
      await vi.waitFor(() => expect(fs.readFileSync(file, "utf8")).toContain("whk_"));
      expect(fs.statSync(file).ino).not.toBe(inode);
      expect(fs.readFileSync(fd, "utf8")).toBe(old); // never written in place
      fs.closeSync(fd);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      await fetch(`${g.url}/__mock/reset`, { method: "POST" });
      await vi.waitFor(() => expect(fs.readFileSync(file, "utf8")).not.toContain(key.id));
    } finally {
      await g.close();
    }
  });

  it("refuses invalid JSON with file, line and column, and leaves the file as it was", async () => {
    const file = fresh();
    const text = '{"version": 1,\n  "states": {,}\n}';
    fs.writeFileSync(file, text);
    await expect(startGateway({ stateFile: file })).rejects.toThrow(new StateFileError(`${file}:2:14: invalid JSON: Expected property name or '}'`));
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    const nowhere = path.join(dir, "no-such-folder", "state.json");
    await expect(startGateway({ stateFile: nowhere })).rejects.toThrow(`${nowhere}: its folder does not exist`);
  });

  it("refuses a part its owner cannot restore, naming where the bad value is", async () => {
    const file = fresh();
    const a = await startGateway({ stateFile: file });
    await post(`${a.url}/v1/webhooks`, { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] });
    await a.close();
    const text = fs.readFileSync(file, "utf8").replace("https://hooks.northwind.example/in", "ftp://elsewhere");
    fs.writeFileSync(file, text);
    const line = text.split("\n").findIndex((l) => l.includes("ftp://")) + 1;
    const col = text.split("\n")[line - 1]!.indexOf('"ftp://') + 1;
    await expect(startGateway({ stateFile: file })).rejects.toThrow(`${file}:${line}:${col}: states.webhooks.webhooks.0.url: must match pattern`);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    for (const [bad, where] of [
      ['{"version": 2, "states": {}}', ":1:13: version: must be 1"],
      ['{"version": 1, "states": []}', ":1:26: states: must be an object"],
      ['{"version": 1, "states": {"keys": {"started_at": "yesterday", "seeded": {}, "created": []}}}', ":1:50: states.keys.started_at: must be a string matching"],
      ['{"version": 1, "states": {"oauth": {"grants": [], "refresh_tokens": [{"token": "rt_x", "grant": "grt_gone", "expires_at": "2026-12-01T00:00:00Z"}], "used_codes": [], "revoked_tokens": [], "revoked_grants": []}}}', ':1:97: states.oauth.refresh_tokens.0.grant: names no grant of "grants"'],
    ] as const) {
      fs.writeFileSync(file, bad);
      await expect(startGateway({ stateFile: file }), bad).rejects.toThrow(file + where);
      expect(fs.readFileSync(file, "utf8")).toBe(bad);
    }
  });

  it("keeps the parts no registered state claims (written by a mock that has one)", async () => {
    const file = fresh();
    fs.writeFileSync(file, JSON.stringify({ version: 1, states: { extra: { analyses: [{ id: "anl_1" }] } } }));
    const g = await startGateway({ stateFile: file });
    await post(`${g.url}/v1/keys`, { name: "x", environment: "test" });
    await g.close();
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(saved.states.extra).toEqual({ analyses: [{ id: "anl_1" }] });
    expect(saved.states.keys.created).toHaveLength(1);
  });

  it("takes a new part with one line: reset resets it, a successful POST, PUT, PATCH or DELETE has it written", async () => {
    const file = fresh();
    const g = await startGateway({ stateFile: file, stateWriteDelayMs: 1 });
    try {
      // A part that never says when it changes, answered by a responder of its own.
      const part = { name: "extra", n: 0, resets: 0, reset: () => void part.resets++, snapshot: () => ({ n: ++part.n }), restore: () => {} };
      g.gateway.states.register(part);
      expect(() => g.gateway.states.register({ ...part })).toThrow('a mock state named "extra" is already registered');
      const saved = () => JSON.parse(fs.readFileSync(file, "utf8")).states.extra;
      await getJson(`${g.url}/v1/analyses`, { headers: json }); // the key's first use this minute (last_used_at)
      await vi.waitFor(() => expect(saved()).toEqual({ n: 1 }));
      await getJson(`${g.url}/v1/analyses`, { headers: json }); // a GET changes nothing more: nothing written
      await new Promise((r) => setTimeout(r, 50));
      expect(saved()).toEqual({ n: 1 });
      const created = await post(`${g.url}/v1/analyses`, { media_url: "https://media.example/a.mp3", media_type: "audio" });
      expect(created.status).toBe(202);
      await vi.waitFor(() => expect(saved()).toEqual({ n: 2 }));
      await fetch(`${g.url}/__mock/reset`, { method: "POST" });
      expect(part.resets).toBe(1);
    } finally {
      await g.close();
    }
  });

  it("a failed write is logged and the mock keeps running", async () => {
    const sub = path.join(dir, "gone");
    fs.mkdirSync(sub);
    const g = await startGateway({ stateFile: path.join(sub, "state.json"), stateWriteDelayMs: 1 });
    try {
      fs.rmSync(sub, { recursive: true });
      await post(`${g.url}/v1/keys`, { name: "x", environment: "test" });
      await vi.waitFor(() => expect(g.logs.some((l) => l.includes("state.json not written: ENOENT"))).toBe(true));
      expect((await getJson(`${g.url}/v1/keys`, { headers: json })).status).toBe(200);
    } finally {
      fs.mkdirSync(sub);
      await g.close();
    }
  });
});
