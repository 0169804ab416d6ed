// `npm run fuzz`: the long property-based fuzz run of the mock gateway (the CI test makes 10,000 requests; this
// makes 100,000 by default, with a random seed). Options: --runs N, --seed S, --path P (with --runs 1, replays the
// failing request of an earlier run: seed and path are printed on failure). Exit code 1 on a failure, 2 on bad
// options.
import { parseArgs } from "node:util";
import { chooseSeed, fuzzGateway, FuzzFailure } from "../../test/helpers/robustness/fuzz.js";

const USAGE = "usage: npm run fuzz -- [--runs N] [--seed S] [--path P]";

let values: { runs?: string; seed?: string; path?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { runs: { type: "string" }, seed: { type: "string" }, path: { type: "string" }, help: { type: "boolean", short: "h" } } }));
} catch (e) {
  console.error(`${(e as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const runs = Number(values.runs ?? 100_000);
const seed = values.seed === undefined ? chooseSeed({ ...process.env, CI: "" }) : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error(`--runs must be a positive integer and --seed an integer\n${USAGE}`);
  process.exit(2);
}

console.log(`fuzz: ${runs} requests, seed ${seed}${values.path ? `, path ${values.path}` : ""}`);
try {
  const r = await fuzzGateway({ runs, seed, path: values.path, progress: (n) => n % 10_000 === 0 && console.log(`  ${n} requests…`) });
  const fmt = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(", ");
  console.log(`fuzz: ${r.runs} requests passed in ${(r.ms / 1000).toFixed(1)} s (seed ${r.seed})`);
  console.log(`  kinds: ${fmt(r.byKind)}`);
  console.log(`  statuses: ${fmt(r.byStatus)}`);
  console.log(`  5xx by kind: ${fmt(r.serverErrors) || "none"}`);
  console.log(`  ms waiting for answers, per kind: ${fmt(Object.fromEntries(Object.entries(r.msByKind).map(([k, v]) => [k, Math.round(v)])))}`);
} catch (e) {
  if (!(e instanceof FuzzFailure)) throw e;
  console.error(e.message);
  process.exit(1);
}
