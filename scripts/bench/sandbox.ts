// The sandbox section (`npm run bench -- --only=sandbox`, docs/sandbox.md): what running the gateway as replicas
// on Redis costs and gives, as ratios to one process taken side by side in one run. Every target serves the same
// stored GET (an analysis seeded in the demo Pro workspace) to autocannon, 10 connections:
//   single       one gateway, counting in its own memory
//   redis        one gateway counting in Redis (--redis): one Lua script per request
//   lb1, lb2     HAProxy in front of 1 or 2 replicas on Redis
// Per-request CPU adds every process of the target (the replicas, Redis, HAProxy) over the requests answered.
// On this 2-core machine the load generator, HAProxy, Redis and the replicas share the cores, so 2 replicas cannot
// show their scaling here: the figure that carries to many machines is the CPU each request costs.
import type { ChildProcess } from "node:child_process";
import { startRedis, type Engine } from "../lib/engines.js";
import { startHaproxy, type Balancer } from "../lib/haproxy.js";
import { sandboxStateBench, type SandboxStateBench } from "./sandbox-state.js";
import { alternate, firstJsonLine, freePort, median, medianRatio, spawnGroup, stopGroup, TSX } from "./lib.js";
import { cpuMs, load, type LoadRun, type Server } from "./mock-throughput.js";

const ITEM_PATH = "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const TARGETS = ["single", "redis", "lb1", "lb2"] as const;
type Target = (typeof TARGETS)[number];

export interface SandboxRun extends LoadRun {
  /** CPU (user + system) of every process of the target, µs per request. */
  totalCpuUsPerRequest: number | null;
}

export interface SandboxBench {
  connections: number;
  durationSeconds: number;
  rounds: number;
  runs: Record<Target, SandboxRun[]>;
  median: Record<Target, { rps: number; p50: number; p99: number; totalCpuUsPerRequest: number | null }>;
  ratios: { redisOverSingle: number; lb1OverSingle: number; lb2OverSingle: number; lb2OverLb1: number; redisCpuOverSingle: number | null; lb2CpuOverSingle: number | null };
  non2xx: number;
  /** Creates and stored GETs with the state in PostgreSQL + Redis (1 and 2 replicas) ÷ one SQLite process (sandbox-state.ts). */
  state: SandboxStateBench;
}

async function replica(redisUrl: string | null): Promise<{ server: Server; child: ChildProcess }> {
  const child = spawnGroup(TSX, ["scripts/bench/servers.ts", "gateway"], { env: { ...process.env, BENCH_REDIS_URL: redisUrl ?? "" } });
  return { server: await firstJsonLine<Server>(child, "gateway replica"), child };
}

export async function sandboxBench(o: {
  rounds: number;
  seconds: number;
  connections: number;
  /** Rounds and seconds of each run of the state part (6 runs a round: 3 setups × create and read). */
  stateRounds: number;
  stateSeconds: number;
  say: (s: string) => void;
}): Promise<SandboxBench> {
  const children: ChildProcess[] = [];
  let redis: Engine | null = null;
  const balancers: Balancer[] = [];
  try {
    redis = await startRedis();
    const single = await replica(null);
    const r1 = await replica(redis.url);
    const r2 = await replica(redis.url);
    children.push(single.child, r1.child, r2.child);
    const host = (s: Server) => new URL(s.url).host;
    const lb1 = await startHaproxy([host(r1.server)], await freePort());
    const lb2 = await startHaproxy([host(r1.server), host(r2.server)], await freePort());
    balancers.push(lb1, lb2);
    const rp = redis.pid;
    const targets: Record<Target, { server: Server; pids: Array<number | null> }> = {
      single: { server: single.server, pids: [single.server.pid] },
      redis: { server: r1.server, pids: [r1.server.pid, rp] },
      lb1: { server: { url: lb1.url, pid: lb1.pid }, pids: [lb1.pid, r1.server.pid, rp] },
      lb2: { server: { url: lb2.url, pid: lb2.pid }, pids: [lb2.pid, r1.server.pid, r2.server.pid, rp] },
    };
    o.say(`  up: single ${single.server.url}, replicas ${r1.server.url} ${r2.server.url} on ${redis.url}, HAProxy ${lb1.url} (1) ${lb2.url} (2)`);
    const run = async (t: Target, seconds: number): Promise<SandboxRun> => {
      const before = targets[t].pids.map((p) => (p === null ? null : cpuMs(p)));
      const r = await load(targets[t].server, ITEM_PATH, seconds, o.connections);
      const after = targets[t].pids.map((p) => (p === null ? null : cpuMs(p)));
      const known = before.every((b) => b !== null) && after.every((a) => a !== null);
      const ms = known ? after.reduce((n, a, i) => n + (a! - before[i]!), 0) : null;
      return { ...r, totalCpuUsPerRequest: ms === null || !r.requests ? null : (ms * 1000) / r.requests };
    };
    await alternate([...TARGETS], 1, (t) => run(t, 1)); // warm-up, not recorded
    const runs = await alternate([...TARGETS], o.rounds, async (t, i) => {
      const r = await run(t, o.seconds);
      const cpu = r.totalCpuUsPerRequest === null ? "" : `  CPU ${r.totalCpuUsPerRequest.toFixed(0)} µs/req (all processes)`;
      o.say(`  round ${i + 1} ${t.padEnd(7)} ${Math.round(r.rps)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${cpu}  non-2xx ${r.non2xx}`);
      return r;
    });
    await Promise.all(children.map((c) => stopGroup(c)));
    o.say("  state: creates and stored GETs on one SQLite process, and HAProxy → 1 and 2 replicas on PostgreSQL + Redis…");
    const state = await sandboxStateBench(redis, { rounds: o.stateRounds, seconds: o.stateSeconds, connections: o.connections, say: o.say });
    const rps = (t: Target) => runs[t].map((r) => r.rps);
    const cpu = (t: Target) => (runs[t].every((r) => r.totalCpuUsPerRequest !== null) ? runs[t].map((r) => r.totalCpuUsPerRequest!) : null);
    const ratioCpu = (a: Target, b: Target) => (cpu(a) && cpu(b) ? medianRatio(cpu(a)!, cpu(b)!) : null);
    return {
      connections: o.connections,
      durationSeconds: o.seconds,
      rounds: o.rounds,
      runs,
      median: Object.fromEntries(
        TARGETS.map((t) => [t, { rps: median(rps(t)), p50: median(runs[t].map((r) => r.p50)), p99: median(runs[t].map((r) => r.p99)), totalCpuUsPerRequest: cpu(t) && median(cpu(t)!) }]),
      ) as SandboxBench["median"],
      ratios: {
        redisOverSingle: medianRatio(rps("redis"), rps("single")),
        lb1OverSingle: medianRatio(rps("lb1"), rps("single")),
        lb2OverSingle: medianRatio(rps("lb2"), rps("single")),
        lb2OverLb1: medianRatio(rps("lb2"), rps("lb1")),
        redisCpuOverSingle: ratioCpu("redis", "single"),
        lb2CpuOverSingle: ratioCpu("lb2", "single"),
      },
      non2xx: TARGETS.reduce((n, t) => n + runs[t].reduce((m, r) => m + r.non2xx + r.errors, 0), 0),
      state,
    };
  } finally {
    for (const b of balancers) await b.stop();
    await Promise.all(children.map((c) => stopGroup(c)));
    await redis?.stop();
  }
}
