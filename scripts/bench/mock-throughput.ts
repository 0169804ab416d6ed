// Mock throughput and latency: autocannon (its Node API), 10 connections, GET /v1/analyses with a valid key,
// against (a) our gateway, (b) bare `prism mock -v error` on generated/openapi.json, (c) a minimal node:http
// server answering the same example body (the ceiling) and (d) the gateway of the last release, from git
// (release-gateway.ts, decision RM29). Then the stateful path against the static one: the
// gateway's GET of a stored analysis and a page of a 1,000-board list, each beside the same request to the
// gateway with `stateless: true` (the contract's example answer). The first four alternate in short rounds, in a
// new order each round, so that load from elsewhere on the machine hits all of them alike, and each of their ratios
// is the median of the rounds' own (decision RM28). The stateful figures are pairs of short
// runs, stored and static back to back (ABBA: the order flips pair by pair), and each ratio is the median of the
// pairs' own ratios: load that comes and goes over seconds (three other engineers' tests on two cores) moved a
// ratio taken from 3 s runs half a minute apart between 0.79× and 1.34× from run to run (decision RM27). Every
// response must be a 2xx: the run fails otherwise (a 429 or an error counted as throughput would flatter the figure).
// Besides req/s and latency, each run records the server process's CPU time per request (Linux, from
// /proc/<pid>/stat): on a shared machine it moves far less than req/s, which also depends on what else runs.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { contentCost, type ContentCost } from "./content-cost.js";
import { extractRelease, lastRelease, type Release } from "./release-gateway.js";
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
/** A stored resource: the analysis the examples show, seeded in every workspace. */
const ITEM_PATH = "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
/** A page (the default 20) of the list the stateful gateway fills with BOARDS boards. */
const PAGE_PATH = "/v1/boards";
/** The targets that alternate round by round; the release's gateway joins them when it could be started. */
const EDGE = ["gateway", "prism", "ceiling"] as const;
const RELEASE = "release" as const;
/** Stored ÷ static: each pair measured back to back. */
const PAIRS = [
  ["storedItem", "staticItem"],
  ["storedPage", "staticPage"],
] as const;
const TARGETS = [...EDGE, RELEASE, ...PAIRS.flat()] as const;
export type Target = (typeof TARGETS)[number];
/** Pairs of stored and static runs per round of the other targets, and how long each of their runs lasts. */
const PAIRS_PER_ROUND = 8;
const PAIR_SECONDS = 0.5;
/**
 * Short rounds of gateway, Prism and ceiling per round asked for (3 by default: 12), how long each run lasts, in a new
 * order each round; each ratio is the median of the rounds' own ratios (decision RM28). Three rounds of 3 s let one
 * burst of other load decide a figure: in one full run the gateway's three rounds were 0.43×, 0.59× and 1.30× of the
 * ceiling (in the last it outran the server that does nothing).
 */
const EDGE_ROUNDS_PER_ROUND = 4;
const EDGE_SECONDS = 1;
/** Which server each target loads, and with which request. */
const PLAN: Record<Target, { server: "gateway" | "prism" | "ceiling" | "stateless" | "release"; path: string }> = {
  gateway: { server: "gateway", path: PATH },
  release: { server: "release", path: PATH },
  prism: { server: "prism", path: PATH },
  ceiling: { server: "ceiling", path: PATH },
  storedItem: { server: "gateway", path: ITEM_PATH },
  staticItem: { server: "stateless", path: ITEM_PATH },
  storedPage: { server: "gateway", path: PAGE_PATH },
  staticPage: { server: "stateless", path: PAGE_PATH },
};

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

interface Medians {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number | null;
}

/** The last release's gateway, measured in the same rounds (RM29), or why it was not. */
export type ReleaseRun = (Release & { answerBytes: { now: number; release: number } }) | { missing: string };

export interface MockThroughput {
  connections: number;
  durationSeconds: number;
  rounds: number;
  /** Pairs of stored and static runs (PAIR_SECONDS each) behind each stateful ratio. */
  pairs: number;
  pairSeconds: number;
  release: ReleaseRun;
  /** `release` is empty when the release's gateway was not measured. */
  runs: Record<Target, LoadRun[]>;
  median: Record<Exclude<Target, typeof RELEASE>, Medians> & { release?: Medians };
  ratios: {
    gatewayOverPrism: number;
    gatewayOverCeiling: number;
    prismOverCeiling: number;
    /** What any node:http server could make of the Prism goal in this run (issue 30: ≥ 30× Prism). */
    ceilingOverPrism: number;
    gatewayCpuOverCeiling: number | null;
    /** Today's gateway over the release's, same rounds: req/s, and CPU time per request (below 1: cheaper now); null when the release was not measured. */
    gatewayOverRelease: number | null;
    gatewayCpuOverRelease: number | null;
    releaseOverPrism: number | null;
    releaseOverCeiling: number | null;
    /** The stateful answers over the static ones (the contract's examples, `stateless: true`): median of the pairs' ratios. */
    storedItemOverStatic: number;
    storedPageOverStatic: number;
    /** The same pairs' CPU time per request, static over stored (≥ 1 when the stored answer costs no more); null without /proc. */
    storedItemCpuOverStatic: number | null;
    storedPageCpuOverStatic: number | null;
  };
  /** Completing an analysis's content (derived, content.ts), measured under a load run of the stored GET. */
  content: ContentCost;
  non2xx: number;
}

/** CPU time (user + system) of a process so far, ms; null without /proc. */
export function cpuMs(pid: number): number | null {
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

/** Loads `urlPath` of `target` for `seconds`; `extra` adds autocannon options (a method and body, `requests`, headers). */
export function load(target: Server, urlPath: string, seconds: number, connections: number, extra: Record<string, unknown> = {}): Promise<LoadRun> {
  const cpu0 = cpuMs(target.pid);
  // Latencies from each response's own timing: autocannon's histogram keeps whole milliseconds only.
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: target.url + urlPath, connections, duration: seconds, headers: { "X-API-Key": KEY }, ...extra }, (err, r) => {
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

export interface Server {
  url: string;
  /** The process that serves (for its CPU time). */
  pid: number;
}

type ServerName = (typeof PLAN)[Target]["server"];
type Servers = Record<Exclude<ServerName, typeof RELEASE>, Server> & { release?: Server };

/**
 * The last release's gateway, from git (RM29), on a free port, or why it could not be started: a checkout without
 * that history, or a release whose bench server no longer runs on today's node_modules, costs the figure, not the run.
 */
async function startRelease(scratch: string, children: ChildProcess[], nowUrl: string): Promise<{ server?: Server; info: ReleaseRun }> {
  const release = lastRelease();
  if ("missing" in release) return { info: release };
  try {
    const dir = path.join(scratch, "release");
    extractRelease(release, dir);
    const child = spawnGroup(TSX, ["scripts/bench/servers.ts", "gateway"], { cwd: dir });
    children.push(child);
    const server = await firstJsonLine<Server>(child, `the ${release.version} gateway`);
    const bytes = async (url: string) => (await (await fetch(url + PATH, { headers: { "X-API-Key": KEY } })).arrayBuffer()).byteLength;
    return { server, info: { ...release, answerBytes: { now: await bytes(nowUrl), release: await bytes(server.url) } } };
  } catch (e) {
    return { info: { missing: `the ${release.version} gateway (${release.commit.slice(0, 12)}) did not start: ${(e as Error).message.split("\n")[0]}` } };
  }
}

async function startServers(scratch: string): Promise<{ servers: Servers; release: ReleaseRun; children: ChildProcess[] }> {
  const gw = spawnGroup(TSX, ["scripts/bench/servers.ts", "gateway"]);
  const sl = spawnGroup(TSX, ["scripts/bench/servers.ts", "stateless"]);
  const prismPort = await freePort();
  const prism = spawnGroup(BIN("prism"), ["mock", "-h", "127.0.0.1", "-p", String(prismPort), "-v", "error", "generated/openapi.json"], { stdio: "ignore" });
  const children = [gw, sl, prism];
  try {
    const gateway = await firstJsonLine<Server>(gw, "gateway");
    const stateless = await firstJsonLine<Server>(sl, "stateless gateway");
    const prismUrl = `http://127.0.0.1:${prismPort}`;
    await waitForStatus(prismUrl + PATH, { "X-API-Key": KEY }, { timeoutMs: 90_000, everyMs: 100, gone: () => prism.exitCode !== null });
    // The ceiling answers exactly the bytes the gateway answers.
    const body = Buffer.from(await (await fetch(gateway.url + PATH, { headers: { "X-API-Key": KEY } })).arrayBuffer());
    const bodyFile = path.join(scratch, "ceiling-body.json");
    fs.writeFileSync(bodyFile, body);
    const ceil = spawnGroup(TSX, ["scripts/bench/servers.ts", "ceiling", bodyFile]);
    children.push(ceil);
    const ceiling = await firstJsonLine<Server>(ceil, "ceiling server");
    const release = await startRelease(scratch, children, gateway.url);
    return { servers: { gateway, stateless, prism: { url: prismUrl, pid: prism.pid! }, ceiling, release: release.server }, release: release.info, children };
  } catch (e) {
    await Promise.all(children.map((c) => stopGroup(c)));
    throw e;
  }
}

/**
 * `pairs` pairs of each comparison's runs, stored and static back to back, the order flipped pair by pair (stored
 * first, then static first) so that load rising or falling across a pair favours neither; the n-th runs of the two
 * are one pair (medianRatio divides them index by index).
 */
async function pairRuns(pairs: number, run: (t: Target, pair: number) => Promise<LoadRun>): Promise<Record<(typeof PAIRS)[number][number], LoadRun[]>> {
  const out = Object.fromEntries(PAIRS.flat().map((t) => [t, [] as LoadRun[]])) as Record<(typeof PAIRS)[number][number], LoadRun[]>;
  for (let i = 0; i < pairs; i++) {
    for (const pair of PAIRS) for (const t of i % 2 ? [...pair].reverse() : pair) out[t].push(await run(t, i));
  }
  return out;
}

export async function mockThroughput(o: { rounds: number; seconds: number; connections: number; say: (s: string) => void }): Promise<MockThroughput> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-mock-"));
  const { servers, release, children } = await startServers(scratch);
  try {
    o.say(`  servers up: gateway ${servers.gateway.url}, stateless gateway ${servers.stateless.url}, prism ${servers.prism.url}, ceiling ${servers.ceiling.url}`);
    o.say("missing" in release ? `  the last release's gateway: not measured (${release.missing})` : `  the last release's gateway (${release.version}, ${release.commit.slice(0, 12)}): ${servers.release!.url}`);
    const run = (t: Target, seconds: number) => load(servers[PLAN[t].server]!, PLAN[t].path, seconds, o.connections);
    const measured = (t: Target) => t !== RELEASE || servers.release !== undefined;
    // Warm-up (JIT, caches, compiled validators), not recorded.
    await alternate(TARGETS.filter(measured), 1, (t) => run(t, 1));
    const report = (label: string, t: Target, result: LoadRun) => {
      const cpu = result.cpuUsPerRequest === null ? "" : `  CPU ${result.cpuUsPerRequest.toFixed(0)} µs/req`;
      o.say(`  ${label} ${t.padEnd(10)} ${Math.round(result.rps)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${cpu}  non-2xx ${result.non2xx}`);
      return result;
    };
    const edgeRounds = o.rounds * EDGE_ROUNDS_PER_ROUND;
    const edgeTargets = ([...EDGE, RELEASE] as Target[]).filter(measured);
    const edge = await alternate(edgeTargets, edgeRounds, async (t, r) => report(`round ${r + 1}`, t, await run(t, EDGE_SECONDS)), true);
    const pairs = o.rounds * PAIRS_PER_ROUND;
    const stateful = await pairRuns(pairs, (t, i) => run(t, PAIR_SECONDS).then((x) => report(`pair ${i + 1}`, t, x)));
    const runs = { ...edge, ...stateful } as Record<Target, LoadRun[]>;
    runs.release ??= [];
    // Not one of the rounds: the measuring loop shares this process with autocannon, so its run is not recorded.
    const content = await contentCost(run("storedItem", o.seconds));
    o.say(`  content: ${content.samples} analyses completed under load, CPU p95 ${content.cpuP95Ms.toFixed(2)} ms, wall p50 ${content.p50Ms.toFixed(2)} ms, p95 ${content.p95Ms.toFixed(2)} ms`);
    const cpu = (t: Target) => (runs[t].every((r) => r.cpuUsPerRequest !== null) ? runs[t].map((r) => r.cpuUsPerRequest!) : null);
    const med = (t: Target): Medians => ({
      rps: median(runs[t].map((r) => r.rps)),
      p50: median(runs[t].map((r) => r.p50)),
      p99: median(runs[t].map((r) => r.p99)),
      cpuUsPerRequest: cpu(t) && median(cpu(t)!),
    });
    const rps = (t: Target) => runs[t].map((r) => r.rps);
    const ofRelease = (f: () => number | null) => (runs.release.length ? f() : null);
    const non2xx = TARGETS.reduce((n, t) => n + runs[t].reduce((m, r) => m + r.non2xx + r.errors, 0), 0);
    return {
      connections: o.connections,
      durationSeconds: EDGE_SECONDS,
      rounds: edgeRounds,
      pairs,
      pairSeconds: PAIR_SECONDS,
      release,
      runs,
      median: Object.fromEntries(TARGETS.filter((t) => runs[t].length).map((t) => [t, med(t)])) as MockThroughput["median"],
      ratios: {
        gatewayOverPrism: medianRatio(rps("gateway"), rps("prism")),
        gatewayOverCeiling: medianRatio(rps("gateway"), rps("ceiling")),
        prismOverCeiling: medianRatio(rps("prism"), rps("ceiling")),
        ceilingOverPrism: medianRatio(rps("ceiling"), rps("prism")),
        gatewayCpuOverCeiling: cpu("gateway") && cpu("ceiling") && medianRatio(cpu("gateway")!, cpu("ceiling")!),
        gatewayOverRelease: ofRelease(() => medianRatio(rps("gateway"), rps("release"))),
        gatewayCpuOverRelease: ofRelease(() => cpu("gateway") && cpu("release") && medianRatio(cpu("gateway")!, cpu("release")!)),
        releaseOverPrism: ofRelease(() => medianRatio(rps("release"), rps("prism"))),
        releaseOverCeiling: ofRelease(() => medianRatio(rps("release"), rps("ceiling"))),
        storedItemOverStatic: medianRatio(rps("storedItem"), rps("staticItem")),
        storedPageOverStatic: medianRatio(rps("storedPage"), rps("staticPage")),
        storedItemCpuOverStatic: cpu("storedItem") && cpu("staticItem") && medianRatio(cpu("staticItem")!, cpu("storedItem")!),
        storedPageCpuOverStatic: cpu("storedPage") && cpu("staticPage") && medianRatio(cpu("staticPage")!, cpu("storedPage")!),
      },
      content,
      non2xx,
    };
  } finally {
    await Promise.all(children.map((c) => stopGroup(c)));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
