// Cold start: from spawning `npm start -- --no-generate --quiet` (PORT a free port) to the first 200 from
// /health and the first 200 from GET /v1/analyses with a demo key; and, side by side in the same rounds, from
// spawning bare `prism mock -v error generated/openapi.json` to its first 200 from GET /v1/analyses. Every
// process is stopped by its process-group id once it has answered.
// --no-generate: the bench checks generated/ against spec/ itself (toolchain.ts, generatedFresh) and never lets
// `npm start` rewrite generated/; a stale generated/ is reported with the figure instead.
import { BIN, alternate, freePort, median, medianRatio, NPM, NPM_ENV, spawnGroup, stopGroup, waitForStatus } from "./lib.js";
import { KEY, PATH } from "./mock-throughput.js";

export interface ColdStartRun {
  healthMs: number | null;
  apiMs: number;
}

export interface ColdStart {
  rounds: number;
  args: string[];
  runs: { gateway: ColdStartRun[]; prism: ColdStartRun[] };
  median: { gatewayHealthMs: number; gatewayApiMs: number; prismApiMs: number };
  ratio: number;
}

async function once(kind: "gateway" | "prism", args: string[]): Promise<ColdStartRun> {
  const port = await freePort();
  const t0 = performance.now();
  const child =
    kind === "gateway"
      ? spawnGroup(NPM, ["start", "--", ...args], { env: { ...NPM_ENV, PORT: String(port), HOST: "127.0.0.1" }, stdio: "ignore" })
      : spawnGroup(BIN("prism"), ["mock", "-h", "127.0.0.1", "-p", String(port), "-v", "error", "generated/openapi.json"], { stdio: "ignore" });
  let exited = false;
  child.once("exit", () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  const firstOk = (p: string) => waitForStatus(base + p, { "X-API-Key": KEY }, { timeoutMs: 120_000, gone: () => exited }).then((at) => at - t0);
  try {
    const [apiMs, healthMs] = await Promise.all([firstOk(PATH), kind === "gateway" ? firstOk("/health") : null]);
    return { healthMs, apiMs };
  } finally {
    await stopGroup(child);
  }
}

export async function coldStart(o: { rounds: number; say: (s: string) => void }): Promise<ColdStart> {
  const args = ["--no-generate", "--quiet"];
  const runs = await alternate(["gateway", "prism"] as const, o.rounds, async (kind, r) => {
    const run = await once(kind, args);
    o.say(`  round ${r + 1} ${kind.padEnd(8)} ${run.healthMs === null ? "" : `/health ${Math.round(run.healthMs)} ms  `}${PATH} ${Math.round(run.apiMs)} ms`);
    return run;
  });
  return {
    rounds: o.rounds,
    args,
    runs,
    median: {
      gatewayHealthMs: median(runs.gateway.map((r) => r.healthMs!)),
      gatewayApiMs: median(runs.gateway.map((r) => r.apiMs)),
      prismApiMs: median(runs.prism.map((r) => r.apiMs)),
    },
    ratio: medianRatio(
      runs.gateway.map((r) => r.apiMs),
      runs.prism.map((r) => r.apiMs),
    ),
  };
}
