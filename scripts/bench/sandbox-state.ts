// The sandbox section's state part (`npm run bench -- --only=sandbox`, docs/sandbox.md "Measurements"): creates
// (POST /v1/boards) and stored GETs (GET /v1/analyses/{id} of the seeded analysis) against
//   sqlite      one gateway process, `--state FILE` (SQLite), no Redis: the single process a sandbox starts as
//   pg1, pg3    HAProxy (round-robin) in front of 1 or 3 replicas, each `--state postgres://… --redis redis://…
//               --ownership` (SB29: a workspace's requests answered by its owner, forwarded there by the others)
// every replica as `npm start` runs it (scripts/lib/replicas.ts), the same keys file in each: WORKSPACES keys, one
// workspace each, rotated request by request (autocannon's `requests`), so that one workspace's lock and one key's
// limit do not decide the figure, with `--limit-scale` raising every plan's limits out of the way.
// Per-request CPU sums every process of the target: the gateways, HAProxy, and with /proc the PostgreSQL server with
// every backend it forked (treeCpuMs) and redis-server, kept per part (replicas, PostgreSQL, Redis, HAProxy) for the
// projection to 10 machines (projection below). PostgreSQL runs with pg_stat_statements: the statements each run
// sent, the timers' own left out (BACKGROUND), over its requests. Ratios are taken round by round against sqlite.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
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
export const STATE_TARGETS = ["sqlite", "pg1", "pg3"] as const;
/** Statements the replicas send on timers whatever the load: /health's ping, the outbox's claim, a lease's renewal. */
const BACKGROUND = [/^SELECT \$1$|^SELECT 1$/, /UPDATE outbox SET claimed_until/, /UPDATE leases SET expires_at/, /AS parts_version FROM versions/, /pg_stat_statements/];
/** The parts a request's CPU is split into. */
const PARTS = ["replicas", "postgres", "redis", "haproxy"] as const;
type Part = (typeof PARTS)[number];
type StateTarget = (typeof STATE_TARGETS)[number];
const OPS = ["create", "read"] as const;
type Op = (typeof OPS)[number];
type Run = `${StateTarget}:${Op}`;

export interface StateRun extends LoadRun {
  /** CPU (user + system) of every process of the target (gateways, HAProxy, PostgreSQL and its backends, Redis), µs per request. */
  totalCpuUsPerRequest: number | null;
  /** The same, per part (the SQLite process: all `replicas`). */
  partsCpuUsPerRequest: Partial<Record<Part, number>> | null;
  /** Statements PostgreSQL ran per request (pg_stat_statements), the timers' own left out; null without PostgreSQL. */
  statementsPerRequest: number | null;
}

export interface StateFigure {
  rps: number;
  p50: number;
  p99: number;
  totalCpuUsPerRequest: number | null;
  partsCpuUsPerRequest: Partial<Record<Part, number>> | null;
  statementsPerRequest: number | null;
}

/**
 * 10 machines of this one's cores: the replicas on every machine, PostgreSQL, Redis and the balancer on one each. The
 * requests per second each part could take at full use of its machine, from the CPU per request measured with 3
 * replicas; the least of them is the bottleneck.
 */
export interface Projection {
  machines: number;
  coresPerMachine: number;
  op: "create" | "read";
  rpsByPart: Record<Part, number>;
  bottleneck: Part;
  rps: number;
}

export interface SandboxStateBench {
  workspaces: number;
  connections: number;
  durationSeconds: number;
  rounds: number;
  runs: Record<Run, StateRun[]>;
  median: Record<Run, StateFigure>;
  /** req/s and CPU per request of each PostgreSQL + Redis setup ÷ the SQLite process, per operation; and 3 replicas ÷ 1. */
  ratios: Record<Op, { pg1OverSqlite: number; pg3OverSqlite: number; pg3OverPg1: number; pg1CpuOverSqlite: number | null; pg3CpuOverSqlite: number | null; pg3CpuOverPg1: number | null }>;
  projection: Projection[];
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
  /** The processes of each part (their trees: PostgreSQL's backends are children of its server). */
  pids: Partial<Record<Part, number[]>>;
  /** A connection to PostgreSQL with pg_stat_statements, when the setup uses it. */
  stats: pg.Client | null;
}

/** CPU of each part's process trees, ms; null when one is gone or without /proc. */
function partsCpuMs(s: Setup): Partial<Record<Part, number>> | null {
  const out: Partial<Record<Part, number>> = {};
  for (const [part, pids] of Object.entries(s.pids) as Array<[Part, number[]]>) {
    const ms = treeCpuMs(pids);
    if (ms === null) return null;
    out[part] = ms;
  }
  return out;
}

/** The statements PostgreSQL ran since the last reset, the timers' own left out. */
async function statementCount(c: pg.Client): Promise<number> {
  const r = await c.query<{ query: string; calls: string }>("SELECT query, calls FROM pg_stat_statements");
  return r.rows.filter((x) => !BACKGROUND.some((b) => b.test(x.query.trim()))).reduce((n, x) => n + Number(x.calls), 0);
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
  await s.stats?.query("SELECT pg_stat_statements_reset()");
  const before = partsCpuMs(s);
  const r = await load({ url: s.url, pid: s.pids.replicas![0]! }, op === "read" ? ITEM_PATH : "/v1/boards", seconds, connections, plan(op));
  const after = partsCpuMs(s);
  const statements = s.stats ? await statementCount(s.stats) : null;
  const per = (ms: number) => (ms * 1000) / r.requests;
  const parts = before && after && r.requests ? (Object.fromEntries(Object.keys(after).map((k) => [k, per(after[k as Part]! - before[k as Part]!)])) as Partial<Record<Part, number>>) : null;
  return {
    ...r,
    partsCpuUsPerRequest: parts,
    totalCpuUsPerRequest: parts && Object.values(parts).reduce((n, x) => n + x, 0),
    statementsPerRequest: statements === null || !r.requests ? null : statements / r.requests,
  };
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

/** The SQLite process, PostgreSQL, three replicas on it and `redisUrl`, and HAProxy in front of one and of all three. */
async function startSetups(redis: Engine, say: (s: string) => void): Promise<Started> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-state-"));
  const keys = keysFile(KEYS);
  const common = ["--keys", keys, "--limit-scale", LIMIT_SCALE];
  const replicas: Replica[] = [];
  const balancers: Balancer[] = [];
  let db: Engine | null = null;
  let stats: pg.Client | null = null;
  const stop = async () => {
    await stats?.end().catch(() => {});
    for (const b of balancers) await b.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(path.dirname(keys), { recursive: true, force: true });
  };
  try {
    replicas.push(await startReplica([...common, "--state", path.join(scratch, "state.db")]));
    db = await startPostgres({ settings: { shared_preload_libraries: "pg_stat_statements" } });
    stats = new pg.Client({ connectionString: db.url });
    await stats.connect();
    await stats.query("CREATE EXTENSION pg_stat_statements");
    // Workspace ownership (SB29): the design meant to scale; without the flag, every replica holds every workspace.
    const onPg = [...common, "--state", db.url, "--redis", redis.url, "--ownership"];
    replicas.push(await startReplica(onPg)); // the first migrates the empty database
    replicas.push(...(await Promise.all([0, 1].map(() => startReplica(onPg)))));
    const [sqlite, r1, r2, r3] = replicas as [Replica, Replica, Replica, Replica];
    const host = (r: Replica) => new URL(r.url).host;
    // Checks every 2 s, out after 5 failures: on a loaded 2-core machine a busy replica's /health can take longer
    // than the recipe's 500 ms, and a replica taken out turns the run into HAProxy's 503s.
    const checks = { interMs: 2000, fall: 5 };
    balancers.push(await startHaproxy([host(r1)], await freePort(), { checks }), await startHaproxy([r1, r2, r3].map(host), await freePort(), { checks }));
    const [lb1, lb3] = balancers as [Balancer, Balancer];
    const engines = { postgres: [db.pid!], redis: [redis.pid!] };
    for (const r of replicas) await warm(r.url);
    say(`  up: SQLite process ${sqlite.url}, replicas ${r1.url} ${r2.url} ${r3.url} on ${db.url} and ${redis.url}, HAProxy ${lb1.url} (1) ${lb3.url} (3)`);
    return {
      setups: {
        sqlite: { url: sqlite.url, pids: { replicas: [sqlite.child.pid!] }, stats: null },
        pg1: { url: lb1.url, pids: { replicas: [r1.child.pid!], haproxy: [lb1.pid], ...engines }, stats },
        pg3: { url: lb3.url, pids: { replicas: [r1, r2, r3].map((r) => r.child.pid!), haproxy: [lb3.pid], ...engines }, stats },
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Each part's median CPU per request over the runs; null when a run could not measure it. */
function medianParts(list: readonly StateRun[]): Partial<Record<Part, number>> | null {
  if (list.some((x) => x.partsCpuUsPerRequest === null)) return null;
  const keys = Object.keys(list[0]?.partsCpuUsPerRequest ?? {}) as Part[];
  return Object.fromEntries(keys.map((k) => [k, median(list.map((x) => x.partsCpuUsPerRequest![k]!))]));
}

/** 10 machines of `cores` cores, from 3 replicas' CPU per request of `op` (Projection). */
export function project(op: Op, cpu: Partial<Record<Part, number>>, cores: number, machines = 10): Projection {
  // µs of CPU a machine has per second, over the µs a request costs the part; the replicas have every machine.
  const capacity = (part: Part, n: number) => (cpu[part] ? (n * cores * 1e6) / cpu[part]! : Infinity);
  const rpsByPart = { replicas: capacity("replicas", machines), postgres: capacity("postgres", 1), redis: capacity("redis", 1), haproxy: capacity("haproxy", 1) };
  const bottleneck = PARTS.reduce((a, b) => (rpsByPart[b] < rpsByPart[a] ? b : a));
  return { machines, coresPerMachine: cores, op, rpsByPart, bottleneck, rps: rpsByPart[bottleneck] };
}

function summarise(runs: Record<Run, StateRun[]>, o: { rounds: number; seconds: number; connections: number }): SandboxStateBench {
  const rps = (r: Run) => runs[r].map((x) => x.rps);
  const cpu = (r: Run) => (runs[r].every((x) => x.totalCpuUsPerRequest !== null) ? runs[r].map((x) => x.totalCpuUsPerRequest!) : null);
  const cpuRatio = (a: Run, b: Run) => (cpu(a) && cpu(b) ? medianRatio(cpu(a)!, cpu(b)!) : null);
  const all = Object.keys(runs) as Run[];
  const ratios = (op: Op) => ({
    pg1OverSqlite: medianRatio(rps(`pg1:${op}`), rps(`sqlite:${op}`)),
    pg3OverSqlite: medianRatio(rps(`pg3:${op}`), rps(`sqlite:${op}`)),
    pg3OverPg1: medianRatio(rps(`pg3:${op}`), rps(`pg1:${op}`)),
    pg1CpuOverSqlite: cpuRatio(`pg1:${op}`, `sqlite:${op}`),
    pg3CpuOverSqlite: cpuRatio(`pg3:${op}`, `sqlite:${op}`),
    pg3CpuOverPg1: cpuRatio(`pg3:${op}`, `pg1:${op}`),
  });
  const figure = (r: Run): StateFigure => {
    const statements = runs[r].map((x) => x.statementsPerRequest);
    return {
      rps: median(rps(r)),
      p50: median(runs[r].map((x) => x.p50)),
      p99: median(runs[r].map((x) => x.p99)),
      totalCpuUsPerRequest: cpu(r) && median(cpu(r)!),
      partsCpuUsPerRequest: medianParts(runs[r]),
      statementsPerRequest: statements.every((x) => x !== null) ? median(statements as number[]) : null,
    };
  };
  const median3 = Object.fromEntries(all.map((r) => [r, figure(r)])) as Record<Run, StateFigure>;
  const cores = os.cpus().length;
  const projection = OPS.flatMap((op) => (median3[`pg3:${op}`].partsCpuUsPerRequest ? [project(op, median3[`pg3:${op}`].partsCpuUsPerRequest!, cores)] : []));
  return {
    workspaces: WORKSPACES,
    connections: o.connections,
    durationSeconds: o.seconds,
    rounds: o.rounds,
    runs,
    median: median3,
    ratios: { create: ratios("create"), read: ratios("read") },
    projection,
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
