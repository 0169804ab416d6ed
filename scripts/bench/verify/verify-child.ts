// One timed verify run, in a process of its own: `tsx scripts/bench/verify/verify-child.ts ROOT` imports the verifier of the
// tree at ROOT (this checkout, or the last release's from git: verify-run.ts) and runs it with `--allow-writes
// --stateful` over VERIFY_BENCH_OPERATIONS against today's mock gateway on a free loopback port (the same test
// backend for both). The gateway's clock is a manual one the run moves when it waits, so a rate limit costs no real
// time and both verifiers meet the same limits. Prints `{"ms": …, "requests": …}`.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ManualClock, startGateway } from "../../../test/helpers/mock.js";
import { BUSINESS_KEY } from "../../../test/verify/fixtures/keys.js";

/** Eight operations of two resources: a round trip each (create, read, list, update, delete). */
export const VERIFY_BENCH_OPERATIONS = "createWebhook,getWebhook,listWebhooks,updateWebhook,deleteWebhook,createSpeaker,getSpeaker,listSpeakers";

async function main(): Promise<void> {
  const root = process.argv[2];
  if (!root) throw new Error("usage: tsx scripts/bench/verify/verify-child.ts ROOT (the tree whose src/verify runs)");
  const { verify } = (await import(pathToFileURL(path.join(root, "src/verify/index.ts")).href)) as typeof import("../../../src/verify/index.js");
  const clock = new ManualClock();
  clock.set(Date.UTC(2026, 0, 5, 12, 0, 30));
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
