// Client overhead: requests per second through three ways of making the same call, with fetch stubbed to answer
// on the next tick (as openapi-fetch's own benchmark does), so the network costs nothing and only the client's own
// work counts:
//   ours        createClient with everything on: API-key auth, retries with the default policy (429 after its
//               Retry-After, 5xx with backoff; each attempt with its 30 s timeout), and a rate-limit middleware
//               reading the X-RateLimit-* headers of every response with readRateLimit;
//   oursPlain   the same without the middleware (what the middleware costs);
//   oursNoTimeout  everything on but the per-attempt timeout (`timeoutMs: 0`): what the timeout costs (its abort
//               signal and timer per attempt, and its watch over the body's arrival);
//   bare        openapi-fetch's createClient with the same key as a default header;
//   raw         fetch(url, { headers }) and response.json().
// Each sample sends n requests one after another; the variants alternate round by round. Wall time, and the
// process's CPU time alongside (less sensitive to other load on a shared machine).
// Run as its own process by scripts/bench.ts (a clean heap and JIT): tsx client-overhead.ts <rounds> <n>.
// Prints one JSON line.
import createFetchClient from "openapi-fetch";
import type { paths } from "../../generated/schema.js";
import { createClient, readRateLimit, type Middleware } from "../../src/index.js";
import { alternate } from "./lib.js";

const BASE = "https://api.bench.invalid";
const KEY = "pk_test_demo_pro";
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

const rateLimitMiddleware: Middleware = {
  onResponse({ response }) {
    checksum += readRateLimit(response)?.remaining ?? 0;
  },
};
const ours = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub, middleware: [rateLimitMiddleware] });
const oursPlain = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub });
const oursNoTimeout = createClient({ baseUrl: BASE, apiKey: KEY, fetch: stub, middleware: [rateLimitMiddleware], timeoutMs: 0 });
const bare = createFetchClient<paths>({ baseUrl: BASE, fetch: stub, headers: { "X-API-Key": KEY } });

const calls = {
  ours: async () => {
    const { data } = await ours.GET("/v1/analyses", { params: { query: { limit: 20 } } });
    checksum += data?.data.length ?? 1;
  },
  oursPlain: async () => {
    const { data } = await oursPlain.GET("/v1/analyses", { params: { query: { limit: 20 } } });
    checksum += data?.data.length ?? 1;
  },
  oursNoTimeout: async () => {
    const { data } = await oursNoTimeout.GET("/v1/analyses", { params: { query: { limit: 20 } } });
    checksum += data?.data.length ?? 1;
  },
  bare: async () => {
    const { data } = await bare.GET("/v1/analyses", { params: { query: { limit: 20 } } });
    checksum += data?.data.length ?? 1;
  },
  raw: async () => {
    const res = await stub(`${BASE}/v1/analyses?limit=20`, { headers: { "X-API-Key": KEY } });
    const data = (await res.json()) as { data: unknown[] };
    checksum += data.data.length;
  },
};
type Kind = keyof typeof calls;

async function sample(kind: Kind, n: number): Promise<{ rps: number; cpuRps: number }> {
  const call = calls[kind];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await call();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { rps: n / wall, cpuRps: n / ((cpu.user + cpu.system) / 1e6) };
}

const rounds = Number(process.argv[2] ?? 7);
const n = Number(process.argv[3] ?? 20_000);
const order: Kind[] = ["ours", "oursPlain", "oursNoTimeout", "bare", "raw"];
// Warm-up: every path JIT-compiled before anything is measured.
await alternate(order, 2, (k) => sample(k, n / 4));
const samples = await alternate(order, rounds, (k) => sample(k, n));
console.log(JSON.stringify({ requestsPerSample: n, rounds, samples, checksum }));
