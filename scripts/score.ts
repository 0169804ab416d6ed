// `npm run score`: `redocly score` of the contract (agent readiness, 0-100), its subscores and weakest operations,
// and a floor it must not fall below: `--min N` (npm test passes the committed floor). Exit codes: 0 at or above
// the floor, 1 below it, 2 when the score could not be computed.
//   npm run score -- [--min N] [--json]
import { parseArgs } from "node:util";
import { SPEC_ROOT } from "./lib/paths.js";
import { redocly } from "./lib/redocly.js";

export interface ScoreReport {
  agentReadiness: number;
  discoverability: number;
  subscores: Record<string, number>;
  operationScores: Record<string, { agentReadiness: number }>;
}

/** Runs `redocly score --format json` on the contract root. */
export async function score(root = SPEC_ROOT): Promise<ScoreReport> {
  const res = await redocly(["score", root, "--format", "json"]);
  const start = res.stdout.indexOf("{");
  if (!res.ok || start < 0) throw new Error(`redocly score failed:\n${res.output}`);
  const report = JSON.parse(res.stdout.slice(start)) as ScoreReport;
  if (typeof report.agentReadiness !== "number") throw new Error("redocly score: no agentReadiness in its JSON output");
  return report;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { values } = parseArgs({ options: { min: { type: "string" }, json: { type: "boolean", default: false } } });
    const min = values.min === undefined ? undefined : Number(values.min);
    if (min !== undefined && !Number.isFinite(min)) throw new Error(`--min must be a number, got ${values.min}`);
    const r = await score();
    if (values.json) console.log(JSON.stringify(r, null, 2));
    else {
      console.log(`redocly score (agent readiness): ${r.agentReadiness}/100, discoverability ${r.discoverability}%`);
      console.log(`  ${Object.entries(r.subscores).map(([k, v]) => `${k} ${pct(v)}`).join(", ")}`);
      const weakest = Object.entries(r.operationScores).sort((a, b) => a[1].agentReadiness - b[1].agentReadiness).slice(0, 5);
      console.log(`  weakest operations: ${weakest.map(([id, s]) => `${id} ${s.agentReadiness}`).join(", ")}`);
    }
    if (min !== undefined && r.agentReadiness < min) {
      console.error(`score ${r.agentReadiness} is below the floor ${min}: see \`redocly score\` for the hotspots`);
      process.exitCode = 1;
    }
  } catch (e) {
    console.error(`score could not run: ${(e as Error).message}`);
    process.exitCode = 2;
  }
}
