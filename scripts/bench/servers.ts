// The servers the mock-throughput figures load, each in its own process so the load generator (autocannon, in
// the bench's process) never shares a heap or an event loop with them. Each listens on 127.0.0.1, a free port,
// and prints one JSON line `{"url": …, "pid": …}` once it answers (pid: the process whose CPU time is read).
//
//   tsx scripts/bench/servers.ts gateway           our mock gateway, quiet, Prism loaded, with every plan's limits
//                                                  raised so no request of the run is refused (the route's
//                                                  validators compile on the bench's warm-up requests); the demo
//                                                  Pro workspace holds 1,000 more boards (BOARDS), made through the API
//   tsx scripts/bench/servers.ts stateless         the same gateway with `stateless: true`: every answer the examples'.
//   tsx scripts/bench/servers.ts ceiling <file>    a minimal node:http server answering every request with the
//                                                  bytes of <file> as JSON: what one Node process can do at best
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createGateway, loadContract, type Contract } from "../../src/mock/index.js";
import type { RateLimitPolicy } from "../../src/contract/policy.js";
import { ROOT } from "../lib/paths.js";

/**
 * Generous enough that a bench run never meets a limit (the counting itself still happens on every request), and
 * small integers as every real plan's are (30 to 150 a minute, 500 to 10,000 a day): a limit beyond 2^31 made each
 * answer format its remaining count as a double, a cost no plan of the contract has (V8 prints small integers
 * quickly; a double's digits take several times as long).
 */
const BENCH_LIMITS = { requests_per_minute: 100_000_000, requests_per_day: 2_000_000_000 };

/** The contract with every plan's limits raised: passed to createGateway as its `contract` option. */
export function withBenchLimits(contract: Contract): Contract {
  const plans = Object.fromEntries(Object.keys(contract.policy.plans).map((p) => [p, { ...BENCH_LIMITS }]));
  const policy: RateLimitPolicy = { ...contract.policy, plans };
  return { ...contract, policy };
}

/** Boards made in the stateful gateway's demo Pro workspace before the run: a list of 1,000 to page through. */
export const BOARDS = 1000;

async function gateway(stateless: boolean): Promise<string> {
  // BENCH_REDIS_URL: a replica of a sandbox, counting in that Redis (the sandbox section).
  const redisUrl = process.env.BENCH_REDIS_URL || null;
  const g = await createGateway({ contract: withBenchLimits(loadContract()), log: null, warm: false, stateless, redisUrl });
  await g.ready;
  const url = await g.listen(0, "127.0.0.1");
  for (let i = 0; !stateless && i < BOARDS; i++) {
    const res = await fetch(`${url}/v1/boards`, {
      method: "POST",
      headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" },
      body: JSON.stringify({ name: `Board ${i}`, description: "Made for the bench.", shared: i % 2 === 0 }),
    });
    if (res.status !== 201) throw new Error(`creating board ${i} answered ${res.status}`);
  }
  const stop = () => void g.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return url;
}

function ceiling(file: string): Promise<string> {
  const body = fs.readFileSync(file);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length });
    res.end(body);
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/bench/servers.ts")) {
  const [kind, file] = process.argv.slice(2);
  const url = kind === "gateway" || kind === "stateless" ? await gateway(kind === "stateless") : kind === "ceiling" && file ? await ceiling(file) : null;
  if (!url) {
    console.error("usage: tsx scripts/bench/servers.ts gateway | stateless | ceiling <body-file>");
    process.exit(2);
  }
  console.log(JSON.stringify({ url, pid: process.pid }));
}
