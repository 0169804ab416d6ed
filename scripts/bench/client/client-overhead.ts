// Client overhead: requests per second through several ways of making the same call, with fetch stubbed to answer
// on the next tick (as openapi-fetch's own benchmark does), so the network costs nothing and only the client's own
// work counts:
//   ours             createClient as shipped, with its defaults: API-key auth, retries (429 after its Retry-After,
//                    5xx with backoff), the 30 s per-attempt timeout, and the latest response kept for
//                    readRateLimit(client) (read on demand, so nothing is parsed per call);
//   oursOnRateLimit  the same plus onRateLimit, which reads the X-RateLimit-* headers of every response;
//   oursNoTimeout    auth, retries and onRateLimit with `timeoutMs: 0`: exactly what the first client issue named;
//   oursMiddleware   as shipped, with the rate limits read by an openapi-fetch middleware instead of onRateLimit;
//   bare             openapi-fetch's createClient with the same key as a default header;
//   bareLikeOurs     openapi-fetch with what a user would add by hand for the same features, retries aside: the key,
//                    a rate-limit middleware and `signal: AbortSignal.timeout(30_000)` on each call;
//   raw              fetch(url, { headers }) and response.json().
// Each sample sends n requests one after another; the variants alternate round by round, in a new random order each
// round (what one variant leaves behind, garbage and timers, slows the next: in a fixed order each variant would
// always follow the same one and pay for it). Wall time, and the
// process's CPU time alongside (less sensitive to other load on a shared machine). Then every variant's calls
// interleaved one by one, each timed, again in a new random order every round: the median time of one call (least
// sensitive to other load).
//
// scripts/bench.ts bundles this file with esbuild and runs the bundle with plain node, as its own process: the
// client is measured as compiled JavaScript, as integrators run it (not through tsx's transform), beside
// openapi-fetch's own compiled code. Arguments: <rounds> <n> [<calls timed one by one>]. Prints one JSON line.
import createFetchClient from "openapi-fetch";
import type { paths } from "../../../generated/schema.js";
import { createClient, readRateLimit, type Middleware, type RateLimit } from "../../../src/index.js";
import { alternate, shuffled } from "../lib.js";

const BASE = "https://api.bench.invalid";
const KEY = "pk_test_demo_pro";
const TIMEOUT_MS = 30_000;
const BODY = JSON.stringify({ data: [], next_cursor: null, has_more: false });
const HEADERS = {
  "Content-Type": "application/json",
  "X-RateLimit-Limit": "150",
  "X-RateLimit-Remaining": "149",
  "X-RateLimit-Reset": "1795093260",
  "X-RateLimit-Daily-Limit": "10000",
  "X-RateLimit-Daily-Remaining": "9874",
};

/** The stubbed fetch: a fresh Response on the next tick. */
const stub = (_input: RequestInfo | URL, _init?: RequestInit): Promise<Response> =>
  new Promise((resolve) => process.nextTick(() => resolve(new Response(BODY, { status: 200, headers: HEADERS }))));

let checksum = 0; // keeps the results alive so nothing is optimised away

const onRateLimit = (r: RateLimit) => {
  checksum += r.remaining;
};
const rateLimitMiddleware: Middleware = {
  onResponse({ response }) {
    checksum += readRateLimit(response)?.remaining ?? 0;
  },
};
const ours = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub });
const oursOnRateLimit = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub, onRateLimit });
const oursNoTimeout = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub, onRateLimit, timeoutMs: 0 });
const oursMiddleware = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub, middleware: [rateLimitMiddleware] });
const bare = createFetchClient<paths>({ baseUrl: BASE, fetch: stub, headers: { "X-API-Key": KEY } });
const bareLikeOurs = createFetchClient<paths>({ baseUrl: BASE, fetch: stub, headers: { "X-API-Key": KEY } });
bareLikeOurs.use(rateLimitMiddleware);

const query = { params: { query: { limit: 20 } } };
// One function per variant, written out rather than made by a shared helper: a call site shared by all the clients
// would turn megamorphic in V8, so each variant's speed would depend on the others'.
const calls = {
  ours: async () => {
    const { data } = await ours.GET("/v1/analyses", query);
    checksum += data?.data.length ?? 1;
  },
  oursOnRateLimit: async () => {
    const { data } = await oursOnRateLimit.GET("/v1/analyses", query);
    checksum += data?.data.length ?? 1;
  },
  oursNoTimeout: async () => {
    const { data } = await oursNoTimeout.GET("/v1/analyses", query);
    checksum += data?.data.length ?? 1;
  },
  oursMiddleware: async () => {
    const { data } = await oursMiddleware.GET("/v1/analyses", query);
    checksum += data?.data.length ?? 1;
  },
  bare: async () => {
    const { data } = await bare.GET("/v1/analyses", query);
    checksum += data?.data.length ?? 1;
  },
  bareLikeOurs: async () => {
    const { data } = await bareLikeOurs.GET("/v1/analyses", { ...query, signal: AbortSignal.timeout(TIMEOUT_MS) });
    checksum += data?.data.length ?? 1;
  },
  raw: async () => {
    const res = await stub(`${BASE}/v1/analyses?limit=20`, { headers: { "X-API-Key": KEY } });
    const data = (await res.json()) as { data: unknown[] };
    checksum += data.data.length;
  },
};
export type ClientVariant = keyof typeof calls;

async function sample(kind: ClientVariant, n: number): Promise<{ rps: number; cpuRps: number }> {
  const call = calls[kind];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await call();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { rps: n / wall, cpuRps: n / ((cpu.user + cpu.system) / 1e6) };
}

/**
 * Every variant's calls interleaved one by one (a, b, c, then c, a, b, …: a new random order each round), each timed
 * alone: the median time of a call
 * per variant. On a loaded machine a whole sample is often cut by other processes; single calls mostly are not,
 * and the median drops the ones that were (and the ones a garbage collection fell into, so it is the client's
 * own work, not the garbage it leaves).
 */
async function perCall(order: ClientVariant[], calls_: number): Promise<Record<ClientVariant, { p50: number; p25: number }>> {
  const times = Object.fromEntries(order.map((k) => [k, new Float64Array(calls_)])) as Record<ClientVariant, Float64Array>;
  for (let i = 0; i < calls_; i++) {
    for (const k of shuffled(order)) {
      const t0 = performance.now();
      await calls[k]();
      times[k][i] = performance.now() - t0;
    }
  }
  const at = (xs: Float64Array, q: number) => xs.sort()[Math.floor(xs.length * q)]! * 1000;
  return Object.fromEntries(order.map((k) => [k, { p50: at(times[k], 0.5), p25: at(times[k], 0.25) }])) as Record<ClientVariant, { p50: number; p25: number }>;
}

const rounds = Number(process.argv[2] ?? 21);
const n = Number(process.argv[3] ?? 1000);
const perCallCalls = Number(process.argv[4] ?? 10_000);
const order = Object.keys(calls) as ClientVariant[];
// Warm-up: every path JIT-compiled before anything is measured.
await alternate(order, 2, (k) => sample(k, n), true);
const samples = await alternate(order, rounds, (k) => sample(k, n), true);
const perCallMicros = await perCall(order, perCallCalls);
console.log(JSON.stringify({ requestsPerSample: n, rounds, samples, perCallCalls, perCallMicros, checksum }));
