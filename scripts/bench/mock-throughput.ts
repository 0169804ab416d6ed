// Mock throughput and latency: autocannon (its Node API), 10 connections, GET /v1/analyses with a valid key,
// against (a) our gateway, (b) bare `prism mock -v error` on generated/openapi.json and (c) a minimal node:http
// server answering the same example body (the ceiling). The targets alternate round by round (a, b, c, a, b, c,
// …) so that load from elsewhere on the machine hits all of them alike. Every response must be a 2xx: the run
// fails otherwise (a 429 or an error counted as throughput would flatter the figure).
// Besides req/s and latency, each run records the server process's CPU time per request (Linux, from
// /proc/<pid>/stat): on a shared machine it moves far less than req/s, which also depends on what else runs.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { alternate, BIN, firstJsonLine, freePort, median, medianRatio, spawnGroup, stopGroup, TSX, waitForStatus } from "./lib.js";

const require = createRequire(import.meta.url);

// The parts of autocannon's result this bench reads (the package ships no types).
interface AutocannonResult {
  requests: { total: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: Error | null, result: AutocannonResult) => void,
) => { on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void };
const autocannon = require("autocannon") as Autocannon;

export const PATH = "/v1/analyses";
export const KEY = "pk_test_demo_pro";
const TARGETS = ["gateway", "prism", "ceiling"] as const;
export type Target = (typeof TARGETS)[number];

export interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** The server's CPU time (user + system) per request, µs; null where /proc is not available. */
  cpuUsPerRequest: number | null;
}

export interface MockThroughput {
  connections: number;
  durationSeconds: number;
  rounds: number;
  runs: Record<Target, LoadRun[]>;
  median: Record<Target, { rps: number; p50: number; p99: number; cpuUsPerRequest: number | null }>;
  ratios: { gatewayOverPrism: number; gatewayOverCeiling: number; prismOverCeiling: number; gatewayCpuOverCeiling: number | null };
  non2xx: number;
}

/** CPU time (user + system) of a process so far, ms; null without /proc. */
function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux architecture Node supports

/** The q-quantile of sorted values. */
function quantile(sorted: Float64Array, q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

function load(target: Server, seconds: number, connections: number): Promise<LoadRun> {
  const cpu0 = cpuMs(target.pid);
  // Latencies from each response's own timing: autocannon's histogram keeps whole milliseconds only.
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: target.url + PATH, connections, duration: seconds, headers: { "X-API-Key": KEY } }, (err, r) => {
      if (err) return reject(err);
      const cpu1 = cpuMs(target.pid);
      const sorted = Float64Array.from(times).sort();
      const round = (ms: number) => Math.round(ms * 1000) / 1000;
      resolve({
        rps: r.requests.total / r.duration,
        p50: round(quantile(sorted, 0.5)),
        p99: round(quantile(sorted, 0.99)),
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
        cpuUsPerRequest: cpu0 === null || cpu1 === null || !r.requests.total ? null : ((cpu1 - cpu0) * 1000) / r.requests.total,
      });
    });
    instance.on("response", (_client, _status, _bytes, ms) => times.push(ms));
  });
}

interface Server {
  url: string;
  /** The process that serves (for its CPU time). */
  pid: number;
}

async function startServers(scratch: string): Promise<{ servers: Record<Target, Server>; children: ChildProcess[] }> {
  const gw = spawnGroup(TSX, ["scripts/bench/servers.ts", "gateway"]);
  const prismPort = await freePort();
  const prism = spawnGroup(BIN("prism"), ["mock", "-h", "127.0.0.1", "-p", String(prismPort), "-v", "error", "generated/openapi.json"], { stdio: "ignore" });
  const children = [gw, prism];
  try {
    const gateway = await firstJsonLine<Server>(gw, "gateway");
    const prismUrl = `http://127.0.0.1:${prismPort}`;
    await waitForStatus(prismUrl + PATH, { "X-API-Key": KEY }, { timeoutMs: 90_000, everyMs: 100, gone: () => prism.exitCode !== null });
    // The ceiling answers exactly the bytes the gateway answers.
    const body = Buffer.from(await (await fetch(gateway.url + PATH, { headers: { "X-API-Key": KEY } })).arrayBuffer());
    const bodyFile = path.join(scratch, "ceiling-body.json");
    fs.writeFileSync(bodyFile, body);
    const ceil = spawnGroup(TSX, ["scripts/bench/servers.ts", "ceiling", bodyFile]);
    children.push(ceil);
    const ceiling = await firstJsonLine<Server>(ceil, "ceiling server");
    return { servers: { gateway, prism: { url: prismUrl, pid: prism.pid! }, ceiling }, children };
  } catch (e) {
    await Promise.all(children.map((c) => stopGroup(c)));
    throw e;
  }
}

export async function mockThroughput(o: { rounds: number; seconds: number; connections: number; say: (s: string) => void }): Promise<MockThroughput> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-mock-"));
  const { servers, children } = await startServers(scratch);
  try {
    o.say(`  servers up: gateway ${servers.gateway.url}, prism ${servers.prism.url}, ceiling ${servers.ceiling.url}`);
    // Warm-up (JIT, caches, compiled validators), not recorded.
    await alternate([...TARGETS], 1, (t) => load(servers[t], 1, o.connections));
    const runs = await alternate([...TARGETS], o.rounds, async (t, r) => {
      const run = await load(servers[t], o.seconds, o.connections);
      const cpu = run.cpuUsPerRequest === null ? "" : `  CPU ${run.cpuUsPerRequest.toFixed(0)} µs/req`;
      o.say(`  round ${r + 1} ${t.padEnd(8)} ${Math.round(run.rps)} req/s  p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms${cpu}  non-2xx ${run.non2xx}`);
      return run;
    });
    const cpu = (t: Target) => (runs[t].every((r) => r.cpuUsPerRequest !== null) ? runs[t].map((r) => r.cpuUsPerRequest!) : null);
    const med = (t: Target) => ({
      rps: median(runs[t].map((r) => r.rps)),
      p50: median(runs[t].map((r) => r.p50)),
      p99: median(runs[t].map((r) => r.p99)),
      cpuUsPerRequest: cpu(t) && median(cpu(t)!),
    });
    const rps = (t: Target) => runs[t].map((r) => r.rps);
    const non2xx = TARGETS.reduce((n, t) => n + runs[t].reduce((m, r) => m + r.non2xx + r.errors, 0), 0);
    return {
      connections: o.connections,
      durationSeconds: o.seconds,
      rounds: o.rounds,
      runs,
      median: { gateway: med("gateway"), prism: med("prism"), ceiling: med("ceiling") },
      ratios: {
        gatewayOverPrism: medianRatio(rps("gateway"), rps("prism")),
        gatewayOverCeiling: medianRatio(rps("gateway"), rps("ceiling")),
        prismOverCeiling: medianRatio(rps("prism"), rps("ceiling")),
        gatewayCpuOverCeiling: cpu("gateway") && cpu("ceiling") && medianRatio(cpu("gateway")!, cpu("ceiling")!),
      },
      non2xx,
    };
  } finally {
    await Promise.all(children.map((c) => stopGroup(c)));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
