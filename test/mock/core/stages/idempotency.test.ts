// Idempotency-Key in the mock (stages/idempotency.ts), over real HTTP: each rule of the contract's x-idempotency,
// including 50 concurrent requests with one key.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readIdempotency, storedStatus } from "../../../../src/contract/idempotency.js";
import { IdempotencyRecords, MAX_IDEMPOTENCY_KEYS } from "../../../../src/mock/core/store/idempotency-records.js";
import { apiKey, contract, freshKey, getJson, startGateway, type TestGateway } from "../../../helpers/mock.js";

const policy = readIdempotency(contract.doc);
const DAY_MS = policy.window_seconds * 1000;
let n = 0;
const newKey = () => `test-key-${process.pid}-${++n}`;

let g: TestGateway;
const own = freshKey("business");
const other = freshKey("business");
beforeAll(async () => {
  g = await startGateway({ extraKeys: [own, other] });
});
afterAll(() => g.close());

function post(url: string, body: unknown, key?: string, secret = own.key) {
  const headers: Record<string, string> = { ...apiKey(secret), "Content-Type": "application/json" };
  if (key !== undefined) headers["Idempotency-Key"] = key;
  return getJson(url, { method: "POST", headers, body: JSON.stringify(body) });
}

async function boardsNamed(name: string, secret = own.key): Promise<number> {
  const list = await getJson(`${g.url}/v1/boards?limit=100`, { headers: apiKey(secret) });
  return list.body.data.filter((b: { name: string }) => b.name === name).length;
}

describe("Idempotency-Key in the mock", () => {
  it("the same key and body replays the first answer, with Idempotent-Replayed, and creates once", async () => {
    const key = newKey();
    const first = await post(`${g.url}/v1/boards`, { name: "Replayed board" }, key);
    const again = await post(`${g.url}/v1/boards`, { name: "Replayed board" }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get(policy.replayed_header)).toBeNull();
    expect([again.status, again.body, again.headers.get(policy.replayed_header)]).toEqual([201, first.body, "true"]);
    expect(again.headers.get("x-ratelimit-remaining")).not.toBe(first.headers.get("x-ratelimit-remaining")); // the replay's own
    expect(await boardsNamed("Replayed board")).toBe(1);
  });

  it("the same key with another body answers 422 idempotency_key_reused, detail a string", async () => {
    const key = newKey();
    await post(`${g.url}/v1/boards`, { name: "First body" }, key);
    const other = await post(`${g.url}/v1/boards`, { name: "Second body" }, key);
    expect(other.status).toBe(422);
    expect(other.body.error).toBe("idempotency_key_reused");
    expect(typeof other.body.detail).toBe("string");
    expect(await boardsNamed("Second body")).toBe(0);
  });

  it("the same key on another path is another request: 422", async () => {
    const key = newKey();
    await post(`${g.url}/v1/boards`, { name: "Path one" }, key);
    expect((await post(`${g.url}/v1/speakers`, { name: "Path one" }, key)).body.error).toBe("idempotency_key_reused");
  });

  it("the same key while the first request is still being processed answers 409 idempotency_key_in_use", async () => {
    const key = newKey();
    const u = new URL(`${g.url}/v1/boards`);
    const body = JSON.stringify({ name: "Slow board" });
    // The first request's body arrives in two parts; the second request comes in between.
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { ...apiKey(own.key), "Content-Type": "application/json", "Idempotency-Key": key, "Content-Length": Buffer.byteLength(body) } });
    const first = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      });
      req.on("error", reject);
    });
    req.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 50)); // lets the first request's headers reach the gateway
    const during = await post(`${g.url}/v1/boards`, { name: "Slow board" }, key);
    expect([during.status, during.body.error, typeof during.body.detail]).toEqual([409, "idempotency_key_in_use", "string"]);
    req.end(body.slice(5));
    const done = await first;
    expect(done.status).toBe(201);
    const after = await post(`${g.url}/v1/boards`, { name: "Slow board" }, key);
    expect([after.status, after.headers.get(policy.replayed_header), after.body]).toEqual([201, "true", JSON.parse(done.text)]);
    expect(await boardsNamed("Slow board")).toBe(1);
  });

  it("50 concurrent requests with one key: exactly one creates, the others replay or get 409", async () => {
    const key = newKey();
    const all = await Promise.all(Array.from({ length: 50 }, () => post(`${g.url}/v1/boards`, { name: "Concurrent board" }, key)));
    const created = all.filter((r) => r.status === 201 && r.headers.get(policy.replayed_header) === null);
    const replayed = all.filter((r) => r.status === 201 && r.headers.get(policy.replayed_header) === "true");
    const inUse = all.filter((r) => r.status === 409 && r.body.error === "idempotency_key_in_use");
    expect(created).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(49);
    for (const r of replayed) expect(r.body).toEqual(created[0]!.body);
    expect(await boardsNamed("Concurrent board")).toBe(1);
  });

  it("keys are scoped to the workspace", async () => {
    const key = newKey();
    const mine = await post(`${g.url}/v1/boards`, { name: "Scoped board" }, key);
    const theirs = await post(`${g.url}/v1/boards`, { name: "Scoped board" }, key, other.key);
    expect([theirs.status, theirs.headers.get(policy.replayed_header)]).toEqual([201, null]);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("a 422 validation failure is not remembered: the fixed body with the same key creates", async () => {
    const key = newKey();
    const bad = await post(`${g.url}/v1/boards`, { name: "" }, key);
    expect([bad.status, Array.isArray(bad.body.detail)]).toEqual([422, true]);
    const fixed = await post(`${g.url}/v1/boards`, { name: "Fixed board" }, key);
    expect([fixed.status, fixed.headers.get(policy.replayed_header)]).toEqual([201, null]);
  });

  it("a 404 of the operation itself is remembered and replayed", async () => {
    const key = newKey();
    const url = `${g.url}/v1/boards/brd_00000000000000000000000000/`.replace(/\/$/, "");
    const patch = () => getJson(url, { method: "PATCH", headers: { ...apiKey(own.key), "Content-Type": "application/json", "Idempotency-Key": key }, body: JSON.stringify({ name: "x" }) });
    const first = await patch();
    expect(first.status).toBe(404);
    const again = await patch();
    expect([again.status, again.headers.get(policy.replayed_header), again.body]).toEqual([404, "true", first.body]);
  });

  it("without a key nothing changes: two requests create two", async () => {
    await post(`${g.url}/v1/boards`, { name: "Unkeyed board" });
    await post(`${g.url}/v1/boards`, { name: "Unkeyed board" });
    expect(await boardsNamed("Unkeyed board")).toBe(2);
  });

  it("a key longer than 255 characters answers 422 from the parameter's schema", async () => {
    const r = await post(`${g.url}/v1/boards`, { name: "Long key" }, "k".repeat(256));
    expect([r.status, Array.isArray(r.body.detail)]).toEqual([422, true]);
  });

  it("a multipart upload sent again (a new boundary) replays", async () => {
    const key = newKey();
    const send = () => {
      const form = new FormData();
      form.append("file", new Blob(["hello"], { type: "text/plain" }), "note.txt");
      form.append("title", "Uploaded once");
      return getJson(`${g.url}/v1/analyses/upload`, { method: "POST", headers: { ...apiKey(own.key), "Idempotency-Key": key }, body: form });
    };
    const first = await send();
    const again = await send();
    expect(first.status).toBe(202);
    expect([again.status, again.headers.get(policy.replayed_header), again.body.id]).toEqual([202, "true", first.body.id]);
  });

  it("a chunked stream upload sent again after a lost answer replays: one analysis, not two (issue 47)", async () => {
    const key = newKey();
    const title = `Streamed once ${key}`;
    const send = () =>
      new Promise<{ status: number; replayed: string | undefined; body: { id: string } }>((resolve, reject) => {
        const u = new URL(`${g.url}/v1/analysis/stream-upload?media_type=audio&title=${encodeURIComponent(title)}`);
        const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "POST", headers: { ...apiKey(own.key), "Content-Type": "application/octet-stream", "Idempotency-Key": key } });
        req.on("response", (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode!, replayed: res.headers[policy.replayed_header.toLowerCase()] as string | undefined, body: JSON.parse(text) }));
        });
        req.on("error", reject);
        for (const chunk of ["RIFF", "....", "WAVEfmt "]) req.write(chunk); // no Content-Length: chunked
        req.end();
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(202);
    expect([again.status, again.replayed, again.body.id]).toEqual([202, "true", first.body.id]);
    const list = await getJson(`${g.url}/v1/analyses?limit=100`, { headers: apiKey(own.key) });
    expect(list.body.data.filter((a: { title: string }) => a.title === title).length).toBe(1);
  });

  it("a stream upload sent again with the same key but other bytes, or another query, answers 422 (its body is hashed as it streams by, never kept)", async () => {
    const key = newKey();
    const send = (query: string, chunks: string[]) =>
      new Promise<{ status: number; error: string | undefined }>((resolve, reject) => {
        const u = new URL(`${g.url}/v1/analysis/stream-upload?${query}`);
        const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "POST", headers: { ...apiKey(own.key), "Content-Type": "application/octet-stream", "Idempotency-Key": key } });
        req.on("response", (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode!, error: JSON.parse(text).error }));
        });
        req.on("error", reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    expect((await send("media_type=audio", ["RIFF", "one"])).status).toBe(202);
    expect(await send("media_type=audio", ["RIFF", "two"])).toEqual({ status: 422, error: "idempotency_key_reused" });
    expect(await send("media_type=video", ["RIFF", "one"])).toEqual({ status: 422, error: "idempotency_key_reused" });
  });

  it("a key is forgotten after the window", async () => {
    const key = newKey();
    await post(`${g.url}/v1/boards`, { name: "Window one" }, key);
    g.clock.advance(DAY_MS);
    const later = await post(`${g.url}/v1/boards`, { name: "Window two" }, key);
    expect([later.status, later.headers.get(policy.replayed_header)]).toEqual([201, null]);
  });

  it("POST /__mock/reset forgets the keys", async () => {
    const key = newKey();
    await post(`${g.url}/v1/boards`, { name: "Before reset" }, key);
    expect((await fetch(`${g.url}/__mock/reset`, { method: "POST" })).status).toBe(204);
    const after = await post(`${g.url}/v1/boards`, { name: "After reset" }, key);
    expect([after.status, after.headers.get(policy.replayed_header)]).toEqual([201, null]);
  });
});

describe("remembered keys", () => {
  it("survive a restart with the state file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "idem-state-"));
    const file = path.join(dir, "state.json");
    const key = newKey();
    const a = await startGateway({ stateFile: file });
    const first = await post(`${a.url}/v1/boards`, { name: "Kept key" }, key, "pk_test_demo_business");
    await a.close();
    const b = await startGateway({ stateFile: file, clock: a.clock });
    try {
      const again = await post(`${b.url}/v1/boards`, { name: "Kept key" }, key, "pk_test_demo_business");
      expect([again.status, again.headers.get(policy.replayed_header), again.body]).toEqual([201, "true", first.body]);
    } finally {
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`are at most ${MAX_IDEMPOTENCY_KEYS} per workspace: the oldest is forgotten`, () => {
    const records = new IdempotencyRecords();
    const rec = (at: number) => ({ fingerprint: "f", status: 201, headers: {}, body: "", at });
    for (let i = 0; i <= MAX_IDEMPOTENCY_KEYS; i++) records.put(`k${i}`, rec(i));
    expect(records.size).toBe(MAX_IDEMPOTENCY_KEYS);
    expect(records.get("k0", 0, DAY_MS)).toBeUndefined();
    expect(records.get(`k${MAX_IDEMPOTENCY_KEYS}`, 0, DAY_MS)?.at).toBe(MAX_IDEMPOTENCY_KEYS);
  });

  it("a malformed record in a snapshot is refused with its place", () => {
    expect(() => IdempotencyRecords.restore({ abc: { status: 201 } }, "store: workspaces.ws_1.idempotency")).toThrow(/workspaces\.ws_1\.idempotency\.abc: needs fingerprint/);
  });

  it("5xx, 400 and 422 are not stored; 2xx, 404 and 409 are (x-idempotency.not_stored)", () => {
    expect([500, 503, 400, 422].map((s) => storedStatus(policy, s))).toEqual([false, false, false, false]);
    expect([200, 201, 202, 404, 409].map((s) => storedStatus(policy, s))).toEqual([true, true, true, true, true]);
  });
});
