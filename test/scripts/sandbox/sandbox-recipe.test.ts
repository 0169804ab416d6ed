// docs/sandbox.md's recipe, run as written: `npm run sandbox` starts PostgreSQL, Redis (append-only), 3 replicas
// logging JSON and HAProxy; through the balancer a key's limit holds in total and a record reads back on every
// replica; `restart r2` restarts one replica with no failed request; a replica killed with SIGKILL is routed around;
// with none left the balancer answers the contract's JSON 503; SIGTERM stops everything the script started. Real
// postgres, redis-server, haproxy and gateway processes.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, missingPostgres } from "../../../scripts/lib/engines.js";
import { keysFile } from "../../../scripts/lib/replicas.js";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";

const skip = missing("redis") ?? missing("haproxy") ?? missingPostgres();
const DOC = fs.readFileSync(path.join(REPO_ROOT, "docs/sandbox.md"), "utf8");
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Reads board `id` `times` times through the balancer: the statuses, and the replicas that answered. */
async function readBack(api: string, id: string, times: number, replicas: string[] = []): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) {
    const res = await fetch(`${api}/v1/boards/${id}`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
    await res.arrayBuffer();
    statuses.push(res.status);
    replicas.push(res.headers.get("X-Sandbox-Replica") ?? "none");
  }
  return statuses;
}

/** Starts `npm run sandbox` with `args`; resolves once its banner is out, with the balancer's URL and the replicas' PIDs. */
async function sandbox(args: string[]) {
  const child = spawn(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/sandbox.ts", ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", () => /Stop\s+Ctrl-C/.test(out) && resolve());
    child.on("exit", (code) => reject(new Error(`npm run sandbox exited ${code}:\n${out}`)));
  });
  return { child, output: () => out, api: /API\s+(http:\/\/\S+)/.exec(out)![1]!, pids: [...out.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1])) };
}

describe.skipIf(skip !== null)(skip ?? "npm run sandbox (docs/sandbox.md)", () => {
  let child: ChildProcess;
  let output = () => "";
  let api = "";
  let pids: number[] = [];
  const key = { key: "pk_test_sandbox_recipe_30", workspace_id: "ws_Recipe00001", plan: "pro", rate_limit_rpm: 30 };
  const load = { key: "pk_test_sandbox_recipe_load", workspace_id: "ws_Recipe00002", plan: "business" }; // 300/min

  beforeAll(async () => {
    // The doc's command, with a free port and a keys file of the test's own.
    expect(DOC).toContain("npm run sandbox -- --replicas 3 --port 8080");
    const s = await sandbox(["--replicas", "3", "--port", "0", "--", "--keys", keysFile([key, load])]);
    ({ child, api, pids } = s);
    output = s.output;
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGKILL");
      for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("serves the README's request through HAProxy, and a key's limit holds in total over the replicas", async () => {
    expect(pids).toHaveLength(3);
    const first = await fetch(`${api}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const left = 60 - new Date().getUTCSeconds();
    if (left < 15) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) {
      const res = await fetch(`${api}/v1/analyses?limit=1`, { headers: { "X-API-Key": key.key } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  }, 60_000);

  it("round-robin over the PostgreSQL it started: a record made through one replica reads back through every one", async () => {
    expect(output()).toMatch(/PostgreSQL\s+postgres:\/\/\S+: records, keys, webhooks shared by every replica/);
    const made = await fetch(`${api}/v1/boards`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" }, body: JSON.stringify({ name: "Where am I" }) });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const replicas: string[] = [];
    expect(await readBack(api, id, 9, replicas)).toEqual(Array(9).fill(200));
    // Round-robin over the replicas passing their checks (on a loaded machine one may miss a check for a moment).
    expect(new Set(replicas).size).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it("logs each request as JSON (pino) naming its replica, with the X-Request-Id the balancer kept", async () => {
    const res = await fetch(`${api}/v1/analyses?limit=1`, { headers: { "X-API-Key": "pk_test_demo_pro", "X-Request-Id": "recipe-trace-1" } });
    await res.arrayBuffer();
    expect(res.headers.get("x-request-id")).toBe("recipe-trace-1");
    const find = () => output().split("\n").filter((l) => l.startsWith("{") && l.includes("recipe-trace-1")).map((l) => JSON.parse(l));
    await expect.poll(() => find().length, { timeout: 5_000 }).toBe(1);
    expect(find()[0]).toMatchObject({ msg: "request", operation: "listAnalyses", status: 200, replica: res.headers.get("X-Sandbox-Replica") });
  }, 30_000);

  it("keeps Redis append-only, so a Redis restart keeps its counts, clock and claims", async () => {
    const url = /Redis\s+(redis:\/\/\S+) \(append-only\)/.exec(output())![1]!;
    const redis = new Redis(url);
    try {
      expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    } finally {
      redis.disconnect();
    }
  });

  it("`npm run sandbox -- restart r2` restarts one replica while requests through the balancer all succeed", async () => {
    const port = new URL(api).port;
    expect(output()).toContain(`npm run sandbox -- restart r2 --port ${port}`);
    expect(DOC).toContain("npm run sandbox -- restart r2 --port 8080");
    let running = true;
    const statuses: number[] = [];
    const loading = (async () => {
      while (running) {
        const res = await fetch(`${api}/v1/boards?limit=1`, { headers: { "X-API-Key": load.key } });
        await res.arrayBuffer();
        statuses.push(res.status);
        await new Promise((r) => setTimeout(r, 40)); // within the key's 300 a minute over the restart's seconds
      }
    })();
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/sandbox.ts", "restart", "r2", "--port", port], { cwd: REPO_ROOT, encoding: "utf8" }, (e, stdout, stderr) =>
        resolve({ status: e ? ((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    running = false;
    await loading;
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const fresh = Number(/r2: restarted \(pid (\d+)\)/.exec(run.stdout)![1]);
    expect(alive(pids[1]!)).toBe(false);
    expect(alive(fresh)).toBe(true);
    pids[1] = fresh;
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const unknown = spawnSync(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/sandbox.ts", "restart", "r9", "--port", port], { cwd: REPO_ROOT, encoding: "utf8" });
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain("error: no replica r9; this sandbox has r1 to r3");
  }, 120_000);

  it("routes around a replica killed with SIGKILL: the survivors answer every request", async () => {
    process.kill(pids[0]!, "SIGKILL");
    const statuses: number[] = [];
    const until = Date.now() + 3_000; // past HAProxy's check (2 × 500 ms) taking the replica out
    while (Date.now() < until) {
      const res = await fetch(`${api}/health`);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 30_000);

  it("answers the contract's JSON 503 with Retry-After once no replica is left", async () => {
    for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
    // A keep-alive connection HAProxy had open to the dead replicas may close under the first attempts: tried again.
    const attempt = () => fetch(`${api}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro", Connection: "close" } }).catch(() => null);
    let res = await attempt();
    for (let i = 0; i < 20 && res?.status !== 503; i++) {
      await res?.arrayBuffer();
      await new Promise((r) => setTimeout(r, 250));
      res = await attempt();
    }
    if (!res) throw new Error("no answer from the balancer");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ error: "dependency_unavailable" });
  }, 30_000);

  it("stops everything it started on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited, output()).toBe(0);
    expect(output()).toContain("Stopped.");
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});

describe.skipIf(skip !== null)(skip ?? "npm run sandbox --memory --sticky", () => {
  it("pins each API key to one replica: a client reads back what it created, every time", async () => {
    const s = await sandbox(["--replicas", "3", "--port", "0", "--memory", "--sticky"]);
    expect(s.output()).toContain("each replica's own, in memory (--memory)");
    try {
      expect(s.output()).toContain("one replica per API key");
      const made = await fetch(`${s.api}/v1/boards`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" }, body: JSON.stringify({ name: "Found again" }) });
      expect(made.status).toBe(201);
      const { id } = (await made.json()) as { id: string };
      const replicas: string[] = [];
      const reads = await readBack(s.api, id, 9, replicas);
      expect(reads, `made on ${made.headers.get("X-Sandbox-Replica")}, read on ${replicas.join(" ")}`).toEqual(Array(9).fill(200));
      expect(new Set(replicas).size).toBe(1);
      expect(replicas[0]).toMatch(/^r[123]$/);
    } finally {
      const exited = new Promise((resolve) => s.child.on("exit", resolve));
      s.child.kill("SIGTERM");
      await exited;
    }
  }, 180_000);
});
