// How the mock's costs grow (issue 22), each figure against gateways in their own processes (scale-server.ts),
// the load from autocannon in the bench's process, medians of rounds:
//
//   listPageP99At100kOver1k      p99 of GET /v1/analyses?status=completed&media_type=audio&cursor=… (200 cursors
//                                spread over the list, so the page cache does not answer) in a workspace of
//                                100,000 analyses ÷ the same in one of 1,000, in the same gateway
//   healthP99UnderStreamsMs      /health p99 while 10,000 SSE streams follow a resting analysis (one workspace, one
//                                address: that gateway's stream and connection caps raised to hold them)
//   healthP99UnderLifecyclesMs   /health p99 while 20,000 analyses are in flight (created, then moving every 20 s)
//   createWithStateOverMemory    POST /v1/boards req/s with --state (a SQLite database) ÷ in memory
//   keyedCreateP99At1kOver1      p99 of POST /v1/boards with a new Idempotency-Key each, with --state, in a
//                                workspace remembering 1,000 answers of ~18 KB ÷ in one remembering 1 (issue 29)
//   healthP99WithIdleSocketsMs   /health p99 while 150 idle sockets from one address are open, --max-connections 150
//   bytesPerStoredAnalysis       the gateway's heap (and off-heap) growth per stored analysis, after a full GC
//   bytesPerOpenStream           the server process's resident memory growth per open stream
//
// Sizes are options (`--scale-streams=2000` …) so the section runs on a small machine too; the caps a gateway
// has (open streams per address, records per collection) are raised with BENCH_GATEWAY_OPTIONS (scale-server.ts).
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { alternate, firstJsonLine, median, medianRatio, spawnGroup, stopGroup, TSX } from "./lib.js";
import { load, type LoadRun, type Server } from "./mock-throughput.js";

export interface ScaleSizes {
  small: number;
  large: number;
  streams: number;
  lifecycles: number;
  lifecycleStepMs: number;
}

export const DEFAULT_SIZES: ScaleSizes = { small: 1_000, large: 100_000, streams: 10_000, lifecycles: 20_000, lifecycleStepMs: 20_000 };

export interface Scale {
  listPageP99At100kOver1k: number;
  healthP99UnderStreamsMs: number;
  healthP99UnderLifecyclesMs: number;
  createWithStateOverMemory: number;
  keyedCreateP99At1kOver1: number;
  healthP99WithIdleSocketsMs: number;
  bytesPerStoredAnalysis: number;
  bytesPerOpenStream: number;
  sizes: ScaleSizes;
  rounds: number;
  seconds: number;
  runs: Record<string, Array<Pick<LoadRun, "rps" | "p50" | "p99" | "requests" | "non2xx" | "errors" | "cpuUsPerRequest">>>;
  /** Answers that were not 2xx, or errors, over all runs: the figures are not valid when it is not 0. */
  non2xx: number;
  notes: string[];
}

/** The demo keys: one workspace each, so creates spread over four workspaces' record caps. */
const KEYS = ["pk_test_demo_free", "pk_test_demo_starter", "pk_test_demo_pro", "pk_test_demo_business"];

type Spawned = Server & { child: ChildProcess } & Record<string, unknown>;

async function serve(args: string[], what: string): Promise<Spawned> {
  const child = spawnGroup(TSX, ["scripts/bench/scale-server.ts", ...args], { env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc --max-old-space-size=4096`.trim() } });
  try {
    return { ...(await firstJsonLine<Server & Record<string, unknown>>(child, what, 300_000)), child };
  } catch (e) {
    await stopGroup(child);
    throw e;
  }
}

/** Resident memory of a process, bytes (Linux), or NaN. */
function rss(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
  } catch {
    return NaN;
  }
}

const slim = (r: LoadRun) => ({ rps: r.rps, p50: r.p50, p99: r.p99, requests: r.requests, non2xx: r.non2xx, errors: r.errors, cpuUsPerRequest: r.cpuUsPerRequest });

async function lists(o: Options, out: Scale): Promise<void> {
  const s = await serve(["lists", String(o.sizes.small), String(o.sizes.large)], "lists gateway");
  try {
    out.bytesPerStoredAnalysis = s.bytesPerAnalysis as number;
    const cursors = s.cursors as { small: string[]; large: string[] };
    const page = (key: string, list: string[]) => ({
      headers: { "X-API-Key": key },
      requests: list.map((c) => ({ path: `/v1/analyses?status=completed&media_type=audio&limit=20&cursor=${c}` })),
    });
    const plan = { small: page("pk_test_demo_pro", cursors.small), large: page("pk_test_demo_business", cursors.large) };
    out.listPageP99At100kOver1k = await p99Ratio(o, out, ["listSmall", "listLarge"], (k, seconds) => load(s, "/v1/analyses", seconds, 10, plan[k]), (k) => `list page at ${k === "small" ? o.sizes.small : o.sizes.large}`);
  } finally {
    await stopGroup(s.child);
  }
}

/**
 * A warm-up of one second, then `o.rounds` alternating runs of a small and a large case (`run` is given the round,
 * undefined for the warm-up); their runs kept in `out.runs` under `names`, the median ratio of p99s returned.
 */
async function p99Ratio(o: Options, out: Scale, names: [string, string], run: (k: "small" | "large", seconds: number, round?: number) => Promise<LoadRun>, label: (k: "small" | "large") => string): Promise<number> {
  await alternate(["small", "large"] as const, 1, (k) => run(k, 1));
  const runs = await alternate(["small", "large"] as const, o.rounds, async (k, r) => {
    const got = await run(k, o.seconds, r);
    o.say(`  round ${r + 1} ${label(k)}: p99 ${got.p99.toFixed(2)} ms, ${Math.round(got.rps)} req/s, non-2xx ${got.non2xx}`);
    return got;
  });
  out.runs[names[0]] = runs.small.map(slim);
  out.runs[names[1]] = runs.large.map(slim);
  return medianRatio(runs.large.map((r) => r.p99), runs.small.map((r) => r.p99));
}

/** /health p99 over `rounds` runs of `seconds`, 2 connections (a load balancer's probe, not a flood). */
async function health(s: Server, o: Options, label: string): Promise<LoadRun[]> {
  const runs: LoadRun[] = [];
  for (let r = 0; r < o.rounds; r++) {
    const run = await load(s, "/health", o.seconds, 2);
    o.say(`  round ${r + 1} /health ${label}: p99 ${run.p99.toFixed(2)} ms, p50 ${run.p50.toFixed(2)} ms, non-2xx ${run.non2xx}`);
    runs.push(run);
  }
  return runs;
}

const post = (url: string, key: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify(body) });
const ANALYSIS = { media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title: "Scale" };

/** Opens one SSE stream; resolves with its request once the headers came (a 200), rejects otherwise. */
function openStream(url: string): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { "X-API-Key": "pk_test_demo_pro", Accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`a stream answered ${res.statusCode}`));
      }
      res.on("data", () => {});
      res.on("error", () => {});
      resolve(req);
    });
    req.on("error", reject);
  });
}

async function streams(o: Options, out: Scale): Promise<void> {
  const s = await serve(["streams", String(o.sizes.streams)], "streams gateway");
  const open: http.ClientRequest[] = [];
  try {
    const analysis = (await (await post(`${s.url}/v1/analyses`, "pk_test_demo_pro", ANALYSIS)).json()) as { id: string };
    const before = rss(s.pid);
    for (let i = 0; i < o.sizes.streams; i += 200) {
      const batch = Math.min(200, o.sizes.streams - i);
      open.push(...(await Promise.all(Array.from({ length: batch }, () => openStream(`${s.url}/v1/analysis/${analysis.id}/stream`)))));
    }
    await new Promise((r) => setTimeout(r, 1000));
    out.bytesPerOpenStream = Math.round((rss(s.pid) - before) / open.length);
    o.say(`  ${open.length} streams open, ${out.bytesPerOpenStream} bytes each (server RSS growth)`);
    const runs = await health(s, o, `with ${open.length} streams open`);
    out.runs.healthUnderStreams = runs.map(slim);
    out.healthP99UnderStreamsMs = median(runs.map((r) => r.p99));
  } finally {
    for (const req of open) req.destroy();
    await stopGroup(s.child);
  }
}

async function lifecycles(o: Options, out: Scale): Promise<void> {
  const s = await serve(["lifecycles", String(o.sizes.lifecycleStepMs)], "lifecycles gateway");
  try {
    const t0 = performance.now();
    const made = await load(s, "/v1/analyses", 600, 20, {
      amount: o.sizes.lifecycles,
      method: "POST",
      requests: KEYS.map((key) => ({ headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify(ANALYSIS) })),
    });
    const seconds = (performance.now() - t0) / 1000;
    o.say(`  ${made.requests} analyses created in ${seconds.toFixed(1)} s (non-2xx ${made.non2xx}); each moves every ${o.sizes.lifecycleStepMs / 1000} s`);
    if (seconds * 1000 > o.sizes.lifecycleStepMs) {
      out.notes.push(`creating ${o.sizes.lifecycles} analyses took ${seconds.toFixed(1)} s, longer than a step: the first ones were processing (releasing content) while /health was measured`);
    }
    if (seconds * 1000 + o.rounds * o.seconds * 1000 > 2 * o.sizes.lifecycleStepMs) out.notes.push("some analyses may have finished before /health was measured to the end: raise --scale-step-ms");
    out.runs.lifecycleCreates = [slim(made)];
    const runs = await health(s, o, `with ${o.sizes.lifecycles} analyses in flight`);
    out.runs.healthUnderLifecycles = runs.map(slim);
    out.healthP99UnderLifecyclesMs = median(runs.map((r) => r.p99));
  } finally {
    await stopGroup(s.child);
  }
}

async function creates(o: Options, out: Scale): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-scale-"));
  const servers = await Promise.all([serve(["create"], "in-memory gateway"), serve(["create", path.join(scratch, "state.db")], "gateway with --state")]);
  const [memory, state] = servers;
  try {
    const plan = {
      method: "POST",
      requests: KEYS.map((key, i) => ({ headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ name: `Board ${i}`, description: "Made for the bench." }) })),
    };
    const target = { memory, state };
    await alternate(["memory", "state"] as const, 1, (k) => load(target[k], "/v1/boards", 1, 10, plan)); // warm-up
    const runs = await alternate(["memory", "state"] as const, o.rounds, async (k, r) => {
      const run = await load(target[k], "/v1/boards", o.seconds, 10, plan);
      o.say(`  round ${r + 1} POST /v1/boards ${k === "state" ? "with --state" : "in memory"}: ${Math.round(run.rps)} req/s, p99 ${run.p99.toFixed(2)} ms, non-2xx ${run.non2xx}`);
      return run;
    });
    out.runs.createMemory = runs.memory.map(slim);
    out.runs.createState = runs.state.map(slim);
    out.createWithStateOverMemory = medianRatio(runs.state.map((r) => r.rps), runs.memory.map((r) => r.rps));
  } finally {
    await Promise.all(servers.map((s) => stopGroup(s.child)));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Keyed creates measured per run: few enough that the workspace remembering 1 stays small while measured. */
const KEYED_PER_RUN = 300;

async function keyedCreates(o: Options, out: Scale): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-keyed-"));
  // A fresh pair of workspaces per round (and one to warm up): each run adds KEYED_PER_RUN keys to its workspace.
  const s = await serve(["keyed", path.join(scratch, "state.db"), String(o.rounds + 1)], "gateway with --state and remembered keys");
  let n = 0;
  try {
    const keys = { one: s.one as string[], many: s.many as string[] };
    const plan = (key: string) => ({
      method: "POST",
      amount: KEYED_PER_RUN,
      requests: [{ headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ name: "Keyed" }), setupRequest: (req: Record<string, unknown>) => ({ ...req, headers: { ...(req.headers as object), "Idempotency-Key": `bench-${++n}` } }) }],
    });
    const which = { small: keys.one, large: keys.many };
    // `amount` ends each run (60 s is only a bound); the warm-up uses the last pair.
    out.keyedCreateP99At1kOver1 = await p99Ratio(o, out, ["keyedAt1", "keyedAt1k"], (k, _s, r) => load(s, "/v1/boards", 60, 2, plan(which[k][r ?? o.rounds]!)), (k) => `keyed POST /v1/boards remembering ${k === "small" ? 1 : 1000} answers`);
  } finally {
    await stopGroup(s.child);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** An idle connection from `localAddress`; resolves once connected (a refused one is closed by the gateway). */
function idleSocket(url: string, localAddress: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.resume(); // a refused one reads its 503 and closes
    socket.on("error", reject);
  });
}

async function idleSockets(o: Options, out: Scale): Promise<void> {
  const s = await serve(["idle"], "gateway with --max-connections 150");
  const idle: net.Socket[] = [];
  try {
    // From 127.0.0.2 (Linux answers the whole of 127.0.0.0/8), so /health comes from another address, 127.0.0.1.
    idle.push(...(await Promise.all(Array.from({ length: 150 }, () => idleSocket(s.url, "127.0.0.2")))));
    await new Promise((r) => setTimeout(r, 500));
    const held = idle.filter((x) => !x.destroyed).length;
    o.say(`  150 idle sockets from 127.0.0.2: ${held} held, the rest refused (its share)`);
    const runs = await health(s, o, "with 150 idle sockets from one address");
    out.runs.healthWithIdleSockets = runs.map(slim);
    out.healthP99WithIdleSocketsMs = median(runs.map((r) => r.p99));
  } finally {
    for (const x of idle) x.destroy();
    await stopGroup(s.child);
  }
}

export interface Options {
  rounds: number;
  seconds: number;
  sizes: ScaleSizes;
  say: (s: string) => void;
}

export async function scale(o: Options): Promise<Scale> {
  const out: Scale = {
    listPageP99At100kOver1k: NaN,
    healthP99UnderStreamsMs: NaN,
    healthP99UnderLifecyclesMs: NaN,
    createWithStateOverMemory: NaN,
    keyedCreateP99At1kOver1: NaN,
    healthP99WithIdleSocketsMs: NaN,
    bytesPerStoredAnalysis: NaN,
    bytesPerOpenStream: NaN,
    sizes: o.sizes,
    rounds: o.rounds,
    seconds: o.seconds,
    runs: {},
    non2xx: 0,
    notes: [],
  };
  for (const [name, part] of [["lists", lists], ["creates", creates], ["keyed", keyedCreates], ["idle", idleSockets], ["lifecycles", lifecycles], ["streams", streams]] as const) {
    o.say(`  [scale: ${name}]`);
    try {
      await part(o, out);
    } catch (e) {
      out.notes.push(`${name}: not measured (${(e as Error).message})`);
      o.say(`  ${name}: not measured (${(e as Error).message})`);
    }
  }
  out.non2xx = Object.values(out.runs).flat().reduce((n, r) => n + r.non2xx + r.errors, 0);
  return out;
}
