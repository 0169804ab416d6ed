// docs/sandbox.md's recipe, run as written: `npm run sandbox` starts Redis, 3 replicas and HAProxy; through the
// balancer a key's limit holds in total; a replica killed with SIGKILL is routed around while the survivors answer
// every request; SIGTERM stops everything the script started. Real redis-server, haproxy and gateway processes.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing } from "../../../scripts/lib/engines.js";
import { keysFile } from "../../../scripts/lib/replicas.js";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";

const skip = missing("redis") ?? missing("haproxy");
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

  beforeAll(async () => {
    // The doc's command, with a free port and a keys file of the test's own.
    expect(DOC).toContain("npm run sandbox -- --replicas 3 --port 8080");
    const s = await sandbox(["--replicas", "3", "--port", "0", "--", "--keys", keysFile([key])]);
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

  it("round-robin: a record is its replica's own (state is not shared yet), so reads through the balancer miss it", async () => {
    const made = await fetch(`${api}/v1/boards`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" }, body: JSON.stringify({ name: "Where am I" }) });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const replicas: string[] = [];
    const reads = await readBack(api, id, 6, replicas);
    expect(reads).toContain(200);
    expect(reads).toContain(404);
    expect(new Set(replicas)).toEqual(new Set(["r1", "r2", "r3"]));
  }, 30_000);

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

  it("stops everything it started on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited, output()).toBe(0);
    expect(output()).toContain("Stopped.");
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});

describe.skipIf(skip !== null)(skip ?? "npm run sandbox --sticky", () => {
  it("pins each API key to one replica: a client reads back what it created, every time", async () => {
    const s = await sandbox(["--replicas", "3", "--port", "0", "--sticky"]);
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
