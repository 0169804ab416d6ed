// docs/sandbox.md's recipe, run as written: `npm run sandbox` starts Redis, 3 replicas and HAProxy; through the
// balancer a key's limit holds in total; a replica killed with SIGKILL is routed around while the survivors answer
// every request; SIGTERM stops everything the script started. Real redis-server, haproxy and gateway processes.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing } from "../../scripts/lib/engines.js";
import { keysFile } from "../../scripts/lib/replicas.js";
import { REPO_ROOT } from "../../src/mock/contract.js";

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

describe.skipIf(skip !== null)(skip ?? "npm run sandbox (docs/sandbox.md)", () => {
  let child: ChildProcess;
  let out = "";
  let api = "";
  let pids: number[] = [];
  const key = { key: "pk_test_sandbox_recipe_30", workspace_id: "ws_Recipe00001", plan: "pro", rate_limit_rpm: 30 };

  beforeAll(async () => {
    // The doc's command, with a free port and a keys file of the test's own.
    expect(DOC).toContain("npm run sandbox -- --replicas 3 --port 8080");
    child = spawn(process.execPath, ["scripts/run-bundled.mjs", "scripts/sandbox.ts", "--replicas", "3", "--port", "0", "--", "--keys", keysFile([key])], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (c: Buffer) => (out += c));
    child.stderr!.on("data", (c: Buffer) => (out += c));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", () => /Stop\s+Ctrl-C/.test(out) && resolve());
      child.on("exit", (code) => reject(new Error(`npm run sandbox exited ${code}:\n${out}`)));
    });
    api = /API\s+(http:\/\/\S+)/.exec(out)![1]!;
    pids = [...out.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
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
    expect(await exited, out).toBe(0);
    expect(out).toContain("Stopped.");
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});
