// The servers of the scale figures (scripts/bench/scale.ts), each a gateway in its own process with every plan's
// limits raised (servers.ts), printing one JSON line `{"url": …, "pid": …, …}` once it answers.
//
//   tsx scripts/bench/scale-server.ts lists <small> <large>   two workspaces of analyses, <small> (demo Pro) and
//        <large> (demo Business), filled directly in the store (100,000 POSTs would take minutes), half of them
//        completed, a third video; prints cursors spread over each list, and the heap each stored analysis costs
//   tsx scripts/bench/scale-server.ts streams <n>             analyses that never move (step of a day), for <n> streams
//        from one client address in one workspace: the caps they would meet (open streams per workspace and per
//        address, 100 and 200; connections, and one address's share of them) raised to hold <n> and /health beside
//        them, with the documented flags (docs/limits.md), so the figure is /health's price under that many streams
//   tsx scripts/bench/scale-server.ts lifecycles <stepMs>     analyses that move every <stepMs>
//   tsx scripts/bench/scale-server.ts create [stateFile]      in memory, or kept in a state database
//   tsx scripts/bench/scale-server.ts keyed <stateFile> <n>   with --state, n pairs of workspaces: one remembering 1
//        Idempotency-Key answer, one remembering 1,000 (each ~18 KB, written as rows, DB11); prints their keys
//   tsx scripts/bench/scale-server.ts idle                    --max-connections 150, for /health beside idle sockets
//
// BENCH_GATEWAY_OPTIONS (JSON) is merged into every gateway's options: raise a cap the figures would meet (open
// streams per address, records per collection) without changing this file.
import path from "node:path";
import { createGateway, loadContract, type GatewayOptions } from "../../src/mock/index.js";
import { encodeCursor } from "../../src/mock/core/store/lists.js";
import { Rec } from "../../src/mock/core/store/records.js";
import { ROOT } from "../lib/paths.js";
import { withBenchLimits } from "./servers.js";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const extra = JSON.parse(process.env.BENCH_GATEWAY_OPTIONS || "{}") as GatewayOptions;

async function start(opts: GatewayOptions) {
  const g = await createGateway({ contract: withBenchLimits(loadContract()), log: null, warm: false, ...opts, ...extra });
  const url = await g.listen(0, "127.0.0.1");
  const stop = () => void g.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return { g, url };
}

/** The caps of a gateway holding `n` event streams from one address in one workspace (and room for /health). */
function streamCaps(n: number): GatewayOptions["limits"] {
  if (!Number.isInteger(n) || n < 1) throw new Error(`streams: give the number of streams (got ${n})`);
  return { streamsPerWorkspace: n, streamsPerAddress: n, connections: n + 1000, addressShare: 100 };
}

/** Heap and off-heap bytes in use after a full collection (run with --expose-gc; without it, a rougher figure). */
function used(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

/** Fills the workspace of `key` with `n` analyses like the seeded one; returns cursors spread over its list. */
function fill(g: Awaited<ReturnType<typeof start>>["g"], key: string, n: number): string[] {
  const workspaceId = g.keys.list().find((k) => k.key === key)!.workspace_id;
  const ws = g.store.workspace(workspaceId);
  const coll = g.store.model.collections.get("Analysis")!;
  const table = ws.table(coll);
  const template = table.ordered(null)[0]!.value;
  const base = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < n; i++) {
    const value = { ...structuredClone(template), id: `anl_bench${String(i).padStart(12, "0")}${key.length}`, status: i % 2 ? "completed" : "failed", media_type: i % 3 ? "audio" : "video", created_at: new Date(base - i * 1000).toISOString() };
    table.add(new Rec(coll, null, ws.seq++, value));
  }
  const list = table.ordered(null);
  return Array.from({ length: 200 }, (_, i) => encodeCursor(list[Math.floor(((i + 0.5) * list.length) / 200)]!));
}

async function lists(small: number, large: number) {
  const { g, url } = await start({});
  const before = used();
  const smallCursors = fill(g, "pk_test_demo_pro", small);
  const afterSmall = used();
  const largeCursors = fill(g, "pk_test_demo_business", large);
  const after = used();
  const bytesPerAnalysis = Math.round((after - afterSmall) / large);
  return { url, cursors: { small: smallCursors, large: largeCursors }, bytesPerAnalysis, heapBeforeMiB: Math.round(before / 2 ** 20) };
}

/** ~18 KB of answer, as the review's large answers (base64 of 13.5 KB). */
const LARGE_BODY = Buffer.alloc(13_824, "x").toString("base64");

/** The workspace `ws_Bench<name>` made to remember `n` large answers. */
function remembering(g: Awaited<ReturnType<typeof start>>["g"], name: string, n: number): void {
  const workspace = `ws_Bench${name}`.padEnd(12, "0");
  const at = Date.now();
  for (let i = 0; i < n; i++) g.store.workspace(workspace).idempotency.put(`${name}-${i}`, { fingerprint: "f", status: 201, headers: { "Content-Type": "application/json" }, body: LARGE_BODY, at });
}

async function keyed(stateFile: string, pairs: number) {
  const names = Array.from({ length: pairs }, (_, r) => [`one${r}`, `many${r}`]).flat();
  const extraKeys = names.map((n) => ({ key: `pk_test_bench${n}_business`, workspace_id: `ws_Bench${n}`.padEnd(12, "0"), plan: "business" }));
  const { g, url } = await start({ stateFile, extraKeys, limits: { workspaces: 4 * pairs + 10 } });
  for (const n of names) remembering(g, n, n.startsWith("one") ? 1 : 1000);
  g.states.changed(); // written now, as rows, before any request is measured
  const keys = (kind: string) => Array.from({ length: pairs }, (_, r) => `pk_test_bench${kind}${r}_business`);
  return { url, one: keys("one"), many: keys("many") };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/bench/scale-server.ts")) {
  const [kind, a, b] = process.argv.slice(2);
  let out: Record<string, unknown>;
  if (kind === "lists") out = await lists(Number(a), Number(b));
  else if (kind === "streams") out = { url: (await start({ stepMs: 86_400_000, limits: streamCaps(Number(a)) })).url };
  else if (kind === "lifecycles") out = { url: (await start({ stepMs: Number(a) })).url };
  else if (kind === "create") out = { url: (await start({ stateFile: a ?? null })).url };
  else if (kind === "keyed") out = await keyed(a!, Number(b));
  else if (kind === "idle") out = { url: (await start({ limits: { connections: 150 } })).url };
  else {
    console.error("usage: tsx scripts/bench/scale-server.ts lists <small> <large> | streams <n> | lifecycles <stepMs> | create [stateFile] | keyed <stateFile> <n> | idle");
    process.exit(2);
  }
  console.log(JSON.stringify({ ...out, pid: process.pid }));
}
