// The sandbox section's state part (`npm run bench -- --only=sandbox`, docs/sandbox.md "Measurements"): creates
// (POST /v1/boards) and stored GETs (GET /v1/analyses/{id} of the seeded analysis) against
//   sqlite      one gateway process, `--state FILE` (SQLite), no Redis: the single process a sandbox starts as
//   pg1, pg2    HAProxy in front of 1 or 2 replicas, each `--state postgres://… --redis redis://…`
// every replica as `npm start` runs it (scripts/lib/replicas.ts), the same keys file in each: WORKSPACES keys, one
// workspace each, rotated request by request (autocannon's `requests`), so that one workspace's lock and one key's
// limit do not decide the figure, with `--limit-scale` raising every plan's limits out of the way.
// Per-request CPU sums every process of the target: the gateways, HAProxy, and with /proc the PostgreSQL server with
// every backend it forked (treeCpuMs) and redis-server. Ratios are taken round by round against sqlite.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPostgres, type Engine } from "../lib/engines.js";
import { startHaproxy, type Balancer } from "../lib/haproxy.js";
import { keysFile, startReplica, type Replica } from "../lib/replicas.js";
import { alternate, freePort, median, medianRatio } from "./lib.js";
import { load, type LoadRun } from "./mock-throughput.js";

const ITEM_PATH = "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
/** Workspaces the load is spread over (a key each). */
export const WORKSPACES = 8;
const KEYS = Array.from({ length: WORKSPACES }, (_, i) => ({ key: `pk_test_bench_sandbox_${i}`, workspace_id: `ws_BenchSandbox${i}`, plan: "pro" }));
const LIMIT_SCALE = "10000";
const WARM_TIMEOUT_MS = 60_000;
export const STATE_TARGETS = ["sqlite", "pg1", "pg2"] as const;
type StateTarget = (typeof STATE_TARGETS)[number];
const OPS = ["create", "read"] as const;
type Op = (typeof OPS)[number];
type Run = `${StateTarget}:${Op}`;

export interface StateRun extends LoadRun {
  /** CPU (user + system) of every process of the target (gateways, HAProxy, PostgreSQL and its backends, Redis), µs per request. */
  totalCpuUsPerRequest: number | null;
}

export interface StateFigure {
  rps: number;
  p50: number;
  p99: number;
  totalCpuUsPerRequest: number | null;
}

export interface SandboxStateBench {
  workspaces: number;
  connections: number;
  durationSeconds: number;
  rounds: number;
  runs: Record<Run, StateRun[]>;
  median: Record<Run, StateFigure>;
  /** req/s of each PostgreSQL + Redis setup ÷ the SQLite process, per operation; and 2 replicas ÷ 1. */
  ratios: Record<Op, { pg1OverSqlite: number; pg2OverSqlite: number; pg2OverPg1: number; pg1CpuOverSqlite: number | null; pg2CpuOverSqlite: number | null }>;
  non2xx: number;
}

/** utime, stime, cutime, cstime and the parent of every process /proc lists, ms; null without /proc. */
function procTable(): Map<number, { ppid: number; own: number; children: number }> | null {
  if (!fs.existsSync("/proc/self/stat")) return null;
  const out = new Map<number, { ppid: number; own: number; children: number }>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ");
      const ms = (i: number) => (Number(f[i]) * 1000) / 100; // USER_HZ is 100 on every Linux Node supports
      out.set(Number(d), { ppid: Number(f[1]), own: ms(11) + ms(12), children: ms(13) + ms(14) });
    } catch {
      // the process ended while we listed
    }
  }
  return out;
}

/**
 * CPU time of `pids` and every process they forked, ms: each live descendant's own time, plus the reaped
 * children's time each root has collected (PostgreSQL forks a backend per connection; a backend that ends moves its
 * time into the postmaster's cutime, so the sum only grows). Null without /proc or when a root is gone.
 */
export function treeCpuMs(pids: readonly number[]): number | null {
  const table = procTable();
  if (!table || pids.some((p) => !table.has(p))) return null;
  const roots = new Set(pids);
  let total = 0;
  for (const [pid, p] of table) {
    let up: number | undefined = pid;
    while (up !== undefined && up > 1 && !roots.has(up)) up = table.get(up)?.ppid;
    if (up !== undefined && roots.has(up)) total += p.own;
  }
  for (const r of roots) total += table.get(r)!.children;
  return total;
}

interface Setup {
  url: string;
  pids: number[];
}

/** The requests of one operation, rotating over the workspaces' keys. */
function plan(op: Op): Record<string, unknown> {
  if (op === "read") return { requests: KEYS.map((k) => ({ method: "GET", path: ITEM_PATH, headers: { "X-API-Key": k.key } })) };
  return {
    method: "POST",
    requests: KEYS.map((k, i) => ({ method: "POST", path: "/v1/boards", headers: { "X-API-Key": k.key, "Content-Type": "application/json" }, body: JSON.stringify({ name: `Bench ${i}`, widgets: [] }) })),
  };
}

async function measure(s: Setup, op: Op, seconds: number, connections: number): Promise<StateRun> {
  const before = treeCpuMs(s.pids);
  const r = await load({ url: s.url, pid: s.pids[0]! }, op === "read" ? ITEM_PATH : "/v1/boards", seconds, connections, plan(op));
  const after = treeCpuMs(s.pids);
  return { ...r, totalCpuUsPerRequest: before === null || after === null || !r.requests ? null : ((after - before) * 1000) / r.requests };
}

/**
 * A create and a read in every workspace on each gateway before any timing: the first request of a workspace loads
 * it (from PostgreSQL), compiles the route's validators and fills the pools; on a loaded machine that takes seconds.
 */
async function warm(url: string): Promise<void> {
  for (const k of KEYS) {
    const headers = { "X-API-Key": k.key, "Content-Type": "application/json" };
    // A bounded wait: a replica stuck on a lock fails the run, naming itself, rather than hanging it.
    const signal = () => AbortSignal.timeout(WARM_TIMEOUT_MS);
    const hung = (e: Error): never => {
      throw new Error(`warming ${url} for ${k.key}: no answer within ${WARM_TIMEOUT_MS} ms (${e.message})`);
    };
    const made = await fetch(`${url}/v1/boards`, { method: "POST", headers, body: JSON.stringify({ name: "Warm", widgets: [] }), signal: signal() }).catch(hung);
    const read = await fetch(url + ITEM_PATH, { headers, signal: signal() }).catch(hung);
    await Promise.all([made.arrayBuffer(), read.arrayBuffer()]);
    if (made.status !== 201 || read.status !== 200) throw new Error(`warming ${url} for ${k.key}: POST answered ${made.status}, GET ${read.status}`);
  }
}

interface Started {
  setups: Record<StateTarget, Setup>;
  stop(): Promise<void>;
}

/** The SQLite process, PostgreSQL, two replicas on it and `redisUrl`, and HAProxy in front of one and of both. */
async function startSetups(redis: Engine, say: (s: string) => void): Promise<Started> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-state-"));
  const keys = keysFile(KEYS);
  const common = ["--keys", keys, "--limit-scale", LIMIT_SCALE];
  const replicas: Replica[] = [];
  const balancers: Balancer[] = [];
  let db: Engine | null = null;
  const stop = async () => {
    for (const b of balancers) await b.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(path.dirname(keys), { recursive: true, force: true });
  };
  try {
    replicas.push(await startReplica([...common, "--state", path.join(scratch, "state.db")]));
    db = await startPostgres();
    const onPg = [...common, "--state", db.url, "--redis", redis.url];
    replicas.push(...(await Promise.all([0, 1].map(() => startReplica(onPg)))));
    const [sqlite, r1, r2] = replicas as [Replica, Replica, Replica];
    const host = (r: Replica) => new URL(r.url).host;
    // Checks every 2 s, out after 5 failures: on a loaded 2-core machine a busy replica's /health can take longer
    // than the recipe's 500 ms, and a replica taken out turns the run into HAProxy's 503s.
    const checks = { interMs: 2000, fall: 5 };
    balancers.push(await startHaproxy([host(r1)], await freePort(), { checks }), await startHaproxy([host(r1), host(r2)], await freePort(), { checks }));
    const [lb1, lb2] = balancers as [Balancer, Balancer];
    const engines = [db.pid!, redis.pid!];
    for (const r of replicas) await warm(r.url);
    say(`  up: SQLite process ${sqlite.url}, replicas ${r1.url} ${r2.url} on ${db.url} and ${redis.url}, HAProxy ${lb1.url} (1) ${lb2.url} (2)`);
    return {
      setups: {
        sqlite: { url: sqlite.url, pids: [sqlite.child.pid!] },
        pg1: { url: lb1.url, pids: [r1.child.pid!, lb1.pid, ...engines] },
        pg2: { url: lb2.url, pids: [r1.child.pid!, r2.child.pid!, lb2.pid, ...engines] },
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function summarise(runs: Record<Run, StateRun[]>, o: { rounds: number; seconds: number; connections: number }): SandboxStateBench {
  const rps = (r: Run) => runs[r].map((x) => x.rps);
  const cpu = (r: Run) => (runs[r].every((x) => x.totalCpuUsPerRequest !== null) ? runs[r].map((x) => x.totalCpuUsPerRequest!) : null);
  const cpuRatio = (a: Run, b: Run) => (cpu(a) && cpu(b) ? medianRatio(cpu(a)!, cpu(b)!) : null);
  const all = Object.keys(runs) as Run[];
  const ratios = (op: Op) => ({
    pg1OverSqlite: medianRatio(rps(`pg1:${op}`), rps(`sqlite:${op}`)),
    pg2OverSqlite: medianRatio(rps(`pg2:${op}`), rps(`sqlite:${op}`)),
    pg2OverPg1: medianRatio(rps(`pg2:${op}`), rps(`pg1:${op}`)),
    pg1CpuOverSqlite: cpuRatio(`pg1:${op}`, `sqlite:${op}`),
    pg2CpuOverSqlite: cpuRatio(`pg2:${op}`, `sqlite:${op}`),
  });
  return {
    workspaces: WORKSPACES,
    connections: o.connections,
    durationSeconds: o.seconds,
    rounds: o.rounds,
    runs,
    median: Object.fromEntries(
      all.map((r) => [r, { rps: median(rps(r)), p50: median(runs[r].map((x) => x.p50)), p99: median(runs[r].map((x) => x.p99)), totalCpuUsPerRequest: cpu(r) && median(cpu(r)!) }]),
    ) as Record<Run, StateFigure>,
    ratios: { create: ratios("create"), read: ratios("read") },
    non2xx: all.reduce((n, r) => n + runs[r].reduce((m, x) => m + x.non2xx + x.errors, 0), 0),
  };
}

export async function sandboxStateBench(redis: Engine, o: { rounds: number; seconds: number; connections: number; say: (s: string) => void }): Promise<SandboxStateBench> {
  const started = await startSetups(redis, o.say);
  try {
    const order = STATE_TARGETS.flatMap((t) => OPS.map((op) => `${t}:${op}` as Run));
    const run = (r: Run, seconds: number) => {
      const [t, op] = r.split(":") as [StateTarget, Op];
      return measure(started.setups[t], op, seconds, o.connections);
    };
    await alternate(order, 1, (r) => run(r, 1)); // warm-up (validators compile, pools fill), not recorded
    const runs = await alternate(order, o.rounds, async (r, i) => {
      const x = await run(r, o.seconds);
      const cpu = x.totalCpuUsPerRequest === null ? "" : `  CPU ${x.totalCpuUsPerRequest.toFixed(0)} µs/req (all processes)`;
      o.say(`  round ${i + 1} ${r.padEnd(13)} ${Math.round(x.rps)} req/s  p50 ${x.p50.toFixed(2)} ms  p99 ${x.p99.toFixed(2)} ms${cpu}  non-2xx ${x.non2xx}`);
      return x;
    });
    return summarise(runs, o);
  } finally {
    await started.stop();
  }
}
