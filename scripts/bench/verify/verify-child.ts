// One timed verify run, in a process of its own: `tsx scripts/bench/verify/verify-child.ts ROOT` imports the verifier of the
// tree at ROOT (this checkout, or the last release's from git: verify-run.ts) and runs it with `--allow-writes
// --stateful` over VERIFY_BENCH_OPERATIONS against today's mock gateway on a free loopback port (the same test
// backend for both). The gateway's clock is a paused simulated one the run moves when it waits, so a rate limit costs
// no real time, both verifiers meet the same limits, and the mock's processing (a speaker's enrollment) moves with the
// run's time as a real backend's does with real time (the x-lifecycle sampling reads it while it moves, decision
// Y52). Prints `{"ms": …, "requests": …}`.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startGateway } from "../../../test/helpers/mock.js";
import { systemClock } from "../../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../../src/mock/core/clock/simulated.js";
import { BUSINESS_KEY } from "../../../test/verify/fixtures/keys.js";

/** Eight operations of two resources: a round trip each (create, read, list, update, delete). */
export const VERIFY_BENCH_OPERATIONS = "createWebhook,getWebhook,listWebhooks,updateWebhook,deleteWebhook,createSpeaker,getSpeaker,listSpeakers";

async function main(): Promise<void> {
  const root = process.argv[2];
  if (!root) throw new Error("usage: tsx scripts/bench/verify/verify-child.ts ROOT (the tree whose src/verify runs)");
  const { verify } = (await import(pathToFileURL(path.join(root, "src/verify/index.ts")).href)) as typeof import("../../../src/verify/index.js");
  const clock = new SimulatedClock(systemClock, { frozenAt: Date.UTC(2026, 0, 5, 12, 0, 30) });
  const g = await startGateway({ clock, webhookDelayMs: 1_000_000_000 });
  await g.gateway.ready;
  try {
    const t0 = performance.now();
    const report = await verify({
      target: g.url,
      apiKey: BUSINESS_KEY,
      operations: VERIFY_BENCH_OPERATIONS,
      allowWrites: true,
      stateful: true,
      rps: null,
      maxWaitSeconds: 3600,
      clock: { now: () => clock.now(), sleep: async (ms) => void clock.advance(ms) },
    });
    console.log(JSON.stringify({ ms: performance.now() - t0, requests: report.requests }));
  } finally {
    await g.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
