// The write path with --state (decision DB9): validate, commit, apply, answer. A change is seen by other requests
// only once it is durable; a failed write leaves memory as it was, is never remembered as an idempotent answer, and
// nothing unacknowledged is ever visible. Real failures, not a mocked database: a tmpfs that fills up, a file system
// remounted read-only, a second process on the same file. Mounting needs root, which the tests and CI have; on a
// machine without it these cases are skipped and say so.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { createGateway, StateFileError } from "../../../../src/mock/index.js";
import { call, contract, startGateway, startReceiver, startStateful, STEP_MS } from "../../../helpers/mock.js";

const canMount = process.getuid?.() === 0 && tryMount();
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) {
    try {
      execFileSync("umount", ["-l", m]);
    } catch {}
    fs.rmSync(m, { recursive: true, force: true });
  }
});

function tryMount(): boolean {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mock-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", d], { stdio: "ignore" });
    execFileSync("umount", [d]);
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(d, { recursive: true, force: true });
  }
}

/** A tmpfs of `size` on a new folder, unmounted after the file's tests. */
function tmpfs(size: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mock-write-path-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", d]);
  mounts.push(d);
  return d;
}

/** Fills the file system of `dir` to the last byte (dd stops at ENOSPC); returns the filler's path. */
function fill(dir: string): string {
  const filler = path.join(dir, "filler");
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=4k"], { stdio: "ignore" });
  } catch {} // dd exits 1 at "No space left on device": that is the point
  return filler;
}

/** The mock as its own process (killed with SIGKILL by a test), once its banner names its URL. */
async function launchGateway(args: string[]): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", MOCK_QUIET: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const take = (c: Buffer) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
  return { child, url, exited };
}

/** Opens a live session: the analysis its `session.started` announces, or the refusal of the upgrade. */
function openSession(url: string): Promise<{ analysisId: string } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/v1/stream?token=pk_test_demo_pro`);
    ws.once("message", (data) => {
      const e = JSON.parse(data.toString()) as { event: string; data: { analysis_id: string } };
      expect(e.event).toBe("session.started");
      ws.send(JSON.stringify({ type: "cancel" }));
      ws.close();
      resolve({ analysisId: e.data.analysis_id });
    });
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once("error", reject);
  });
}

/** Polls `ok()` every few ms until it holds, or throws naming `what` after `tries` polls (not a measure of time). */
async function until(what: string, ok: () => boolean, tries = 2000): Promise<void> {
  for (let i = 0; !ok(); i++) {
    if (i >= tries) throw new Error(`never came: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An SSE stream read as it arrives. */
async function follow(url: string): Promise<{ text(): string; ended(): boolean }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  let text = "";
  let ended = false;
  const reader = res.body!.getReader();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return void (ended = true);
      text += Buffer.from(value!).toString();
    }
  })();
  return { text: () => text, ended: () => ended };
}

/** A WebSocket of an analysis's events, its messages kept as they arrive. */
async function followSocket(url: string): Promise<{ text(): string; ended(): boolean }> {
  const ws = new WebSocket(url);
  let text = "";
  let ended = false;
  ws.on("message", (d) => (text += `${d.toString()}\n`));
  ws.on("close", () => (ended = true));
  await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
  return { text: () => text, ended: () => ended };
}

const names = async (url: string) => ((await call(url, "GET", "/v1/boards?limit=100")).body.data as Array<{ name: string }>).map((b) => b.name);

describe.skipIf(!canMount)("the write path with --state on a failing disk", () => {
  it("a failed create, update or delete leaves memory as it was, and its key is not remembered", async () => {
    const dir = tmpfs("4m");
    const file = path.join(dir, "state.db");
    let g = await startGateway({ stateFile: file });
    const kept = await call(g.url, "POST", "/v1/boards", { body: { name: "Kept" } });
    expect(kept.status).toBe(201);
    const id = kept.body.id as string;
    const filler = fill(dir);

    // Several writes, since SQLite may still find room in its log for the first.
    let lost = -1;
    for (let i = 0; i < 50 && lost < 0; i++) {
      const r = await call(g.url, "POST", "/v1/boards", { body: { name: `Lost ${i}` }, headers: { "Idempotency-Key": `key-${i}` } });
      if (r.status === 500) lost = i;
      else expect(r.status).toBe(201);
    }
    expect(lost, "a create failed on the full disk").toBeGreaterThanOrEqual(0);
    const before = await names(g.url);
    expect(before).not.toContain(`Lost ${lost}`);

    // The PATCH and DELETE that fail change nothing.
    const patch = await call(g.url, "PATCH", `/v1/boards/${id}`, { body: { name: "Renamed" } });
    expect(patch.status).toBe(500);
    expect((await call(g.url, "GET", `/v1/boards/${id}`)).body.name).toBe("Kept");
    const del = await call(g.url, "DELETE", `/v1/boards/${id}`);
    expect(del.status).toBe(500);
    expect((await call(g.url, "GET", `/v1/boards/${id}`)).status).toBe(200);
    expect(await names(g.url)).toEqual(before);

    // Space comes back: the key of the failed create creates (no replay of an answer never acknowledged).
    fs.rmSync(filler);
    const retry = await call(g.url, "POST", "/v1/boards", { body: { name: `Lost ${lost}` }, headers: { "Idempotency-Key": `key-${lost}` } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const listed = await names(g.url);
    expect(listed).toContain(`Lost ${lost}`);

    // After a restart, the database holds exactly what was acknowledged.
    await g.close();
    g = await startGateway({ stateFile: file });
    expect(await names(g.url)).toEqual(listed);
    expect((await call(g.url, "GET", `/v1/boards/${id}`)).body.name).toBe("Kept");
    const again = await call(g.url, "POST", "/v1/boards", { body: { name: `Lost ${lost}` }, headers: { "Idempotency-Key": `key-${lost}` } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(retry.body.id);
    await g.close();
  });

  it("publish after commit: a DELETE that fails on the full disk sends no event to open streams (issue 47)", async () => {
    const dir = tmpfs("4m");
    const file = path.join(dir, "state.db");
    const g = await startGateway({ stateFile: file });
    try {
      const made = await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio", title: "Watched" } });
      expect(made.status).toBe(202);
      const id = made.body.id as string;
      // An SSE stream of the analysis, read as it arrives.
      const res = await fetch(`${g.url}/v1/analysis/${id}/stream?token=pk_test_demo_pro`);
      expect(res.status).toBe(200);
      let text = "";
      const reader = res.body!.getReader();
      const reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += Buffer.from(value).toString();
        }
      })();
      // The status so far arrives first (queued).
      while (!text.includes("queued")) await new Promise((r) => setImmediate(r));
      const filler = fill(dir);
      let failed = false;
      for (let i = 0; i < 50 && !failed; i++) {
        const r = await call(g.url, "DELETE", `/v1/analyses/${id}`);
        if (r.status === 500) failed = true;
        else {
          // A write that still found room: make another change so the disk really fills.
          expect(r.status).toBe(409); // it cannot be canceled twice; the board below is the filler write
          break;
        }
      }
      expect(failed, "the DELETE failed on the full disk").toBe(true);
      // A round trip after the 500: whatever the failed change would have published has been written by now.
      expect((await call(g.url, "GET", `/v1/analyses/${id}`)).status).not.toBe(404);
      expect(text).not.toContain("canceled");
      fs.rmSync(filler);
      const ok = await call(g.url, "DELETE", `/v1/analyses/${id}`);
      expect(ok.status).toBeLessThan(300);
      // The committed DELETE is shown: the analysis is gone.
      expect((await call(g.url, "GET", `/v1/analyses/${id}`)).status).toBe(404);
      await reader.cancel();
      await reading;
    } finally {
      await g.close();
    }
  });

  it("streams after a failed write: nothing of it is shown, no webhook leaves, and the streams go on with what is committed next (issue 47)", async () => {
    const dir = tmpfs("4m");
    const file = path.join(dir, "state.db");
    const g = await startStateful({ stateFile: file });
    const receiver = await startReceiver();
    try {
      const hook = await call(g.url, "POST", "/v1/webhooks", { body: { url: receiver.url, event_types: ["analysis.completed"] } });
      expect(hook.status).toBe(201);
      const made = await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio", title: "Watched" } });
      const id = made.body.id as string;
      const sse = await follow(`${g.url}/v1/analysis/${id}/stream?token=pk_test_demo_pro`);
      const ws = await followSocket(`${g.url.replace(/^http/, "ws")}/ws/analyses/${id}?token=pk_test_demo_pro`);
      await until("both streams show queued", () => sse.text().includes("queued") && ws.text().includes("queued"));
      const filler = fill(dir);
      // The disk is full once a write fails (SQLite may still find room in its log for the first few).
      for (let i = 0; i < 50; i++) if ((await call(g.url, "POST", "/v1/boards", { body: { name: `Filler ${i}` } })).status === 500) break;
      // The failed create put the workspace back as the database holds it (DB9); a read loads it again.
      expect((await call(g.url, "GET", `/v1/analyses/${id}`)).body.status).toBe("queued");
      // The analysis's steps, taken by themselves, cannot be written: nothing of them is shown.
      g.clock.advance(STEP_MS * 3);
      await until("a step not written", () => g.logs.some((l) => /not written/.test(l)));
      const after = await call(g.url, "GET", `/v1/analyses/${id}`);
      expect(after.body.status).not.toBe("completed");
      expect(sse.text()).not.toContain("completed");
      expect(ws.text()).not.toContain("completed");
      expect(receiver.deliveries).toEqual([]);
      // Space comes back: the steps are taken again from what was committed, and the streams that stayed open show
      // them and end; one webhook leaves.
      fs.rmSync(filler);
      await call(g.url, "GET", `/v1/analyses/${id}`);
      g.clock.advance(STEP_MS * 3);
      await until("both streams end after completed", () => sse.ended() && ws.ended());
      expect((await call(g.url, "GET", `/v1/analyses/${id}`)).body.status).toBe("completed");
      expect(sse.text()).toContain('"status":"completed"');
      expect(ws.text()).toContain('"status":"completed"');
      // (The demo workspace's seeded analysis that was processing completes too: its webhook is not this test's.)
      await until("the webhook", () => receiver.deliveries.some((d) => d.body.data.analysis.id === id));
      expect(receiver.deliveries.filter((d) => d.body.data.analysis.id === id).map((d) => d.body.type)).toEqual(["analysis.completed"]);
    } finally {
      await receiver.close();
      await g.close();
    }
  }, 60_000);

  it("a live session is written before `session.started`, or refused while the disk is full; after kill -9 no announced analysis is missing (issue 47)", async () => {
    const dir = tmpfs("4m");
    const file = path.join(dir, "state.db");
    const args = ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--no-generate", "--quiet", "--state", file];
    const a = await launchGateway(args); // one process: the server itself, killed without warning
    const announced: string[] = [];
    const refusals: Array<{ status: number; body: string }> = [];
    const filler = fill(dir);
    // Several sessions, since SQLite may still find room in its log for the first.
    for (let i = 0; i < 30 && refusals.length < 2; i++) {
      const r = await openSession(a.url);
      if ("analysisId" in r) announced.push(r.analysisId);
      else refusals.push(r);
    }
    a.child.kill("SIGKILL");
    expect(await a.exited).toBe(null); // killed by the signal
    fs.rmSync(filler);
    const b = await launchGateway(args);
    try {
      const statuses = await Promise.all(announced.map(async (id) => [id, (await call(b.url, "GET", `/v1/analyses/${id}`)).status]));
      expect(statuses.filter(([, status]) => status !== 200)).toEqual([]);
      // Refused before the upgrade, with the contract's 503 and error body.
      expect(refusals.length, "a session was refused on the full disk").toBeGreaterThan(0);
      for (const r of refusals) {
        expect(r.status).toBe(503);
        expect(JSON.parse(r.body)).toEqual({ detail: expect.stringMatching(/could not be stored.*Retry/) });
      }
      // With room again, a session opens and announces an analysis that is there.
      const r = await openSession(b.url);
      expect(r).toHaveProperty("analysisId");
      expect((await call(b.url, "GET", `/v1/analyses/${(r as { analysisId: string }).analysisId}`)).status).toBe(200);
    } finally {
      b.child.kill("SIGTERM");
      await b.exited;
    }
  }, 120_000);

  it("a state file on a read-only file system refuses the start, naming it", async () => {
    const dir = tmpfs("4m");
    const file = path.join(dir, "state.db");
    const g = await startGateway({ stateFile: file });
    await g.close();
    execFileSync("mount", ["-o", "remount,ro", dir]);
    const err = await createGateway({ contract, stateFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toMatch(/read-only|cannot be written/);
  });
});

describe("one process per state file", () => {
  it("a second gateway on the same file refuses to start, naming the file and the holder", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-lock-"));
    const file = path.join(dir, "state.db");
    const a = await startGateway({ stateFile: file });
    try {
      const err = await createGateway({ contract, stateFile: file }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateFileError);
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toContain(`process ${process.pid}`);
    } finally {
      await a.close();
    }
    // Once the holder has closed it, the file opens again.
    const b = await startGateway({ stateFile: file });
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a lock held by another live process refuses the start; one left by a dead process is taken over", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-lock-"));
    const file = path.join(dir, "state.db");
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: other.pid, host: os.hostname() }));
      const err = await createGateway({ contract, stateFile: file }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateFileError);
      expect((err as Error).message).toContain(`process ${other.pid}`);
    } finally {
      other.kill("SIGKILL");
    }
    await new Promise((r) => other.once("exit", r));
    const g = await startGateway({ stateFile: file });
    expect(JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")).pid).toBe(process.pid);
    await g.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
