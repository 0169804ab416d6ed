// Toolchain time and type cost. For the real contract (×1) and for copies grown to ×5 and ×20 operations
// (grow-contract.ts), each round times, as wall time of the command a developer runs:
//   generate  npm run generate -- --root=<copy>/spec/openapi.yaml --out=<copy>/generated
//   lint      npm run lint -- <copy>/spec/openapi.yaml           (the repository's redocly.yaml and policy plugin)
//   tsc       tsc --noEmit --extendedDiagnostics -p <copy>/…/consumer/tsconfig.json
//   gate      npm run check:breaking -- --spec <copy>/spec/openapi.yaml --head <copy>/generated/openapi.yaml
//             (×1 only: the unchanged contract against the repository's release baseline, its staleness told by
//             the copy's generated/inputs.json, without generating again), twice: its cache off (the first run on
//             these bytes) and with its cache holding them (every later run on an unchanged contract)
// The consumer (consumer/consumer.ts, ten operations) is checked the way a package consumer checks it: against
// the client's emitted declarations (built once here) and the copy's generated/schema.d.ts, with skipLibCheck.
// A second copy of it with bare openapi-fetch in place of createClient gives the type-cost ratio.
// Scales alternate within a round (×1, ×5, ×20, ×1, …). Every copy lives in a scratch folder; spec/ and
// generated/ of the repository are only read.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../../lib/paths.js";
import { growContract } from "./grow-contract.js";
import { BIN, median, NPM, NPM_ENV, timed } from "../lib.js";

const CONSUMER_DIR = "scripts/bench/toolchain/consumer";
const CLIENT_BLOCK = /\/\/ --- client ---\n[\s\S]*?\/\/ --- end client ---\n/;
/** The consumer's client block, for the bare openapi-fetch copy (its import of the types climbs out of CONSUMER_DIR). */
const BARE_CLIENT = `// --- client ---
import createFetchClient from "openapi-fetch";
import type { paths } from "${"../".repeat(CONSUMER_DIR.split("/").length)}generated/schema.js";

const api = createFetchClient<paths>({ baseUrl: "http://127.0.0.1:4010", headers: { "X-API-Key": "pk_test_demo_pro" } });
// --- end client ---
`;

export interface TscDiagnostics {
  ms: number;
  instantiations: number;
  types: number;
  checkSeconds: number;
  memoryKb: number;
}

export interface ScaleRun {
  generateMs: number;
  lintMs: number;
  tsc: TscDiagnostics;
  /** npm run check:breaking on the unchanged contract (×1 only), its cache off: the first run on these bytes. */
  gateMs?: number;
  /** The same with its cache (diff-cache.ts) holding these bytes already: any later run on an unchanged contract. */
  gateWarmMs?: number;
  /** The bare openapi-fetch consumer: every ×1 run, the first run of a grown copy. */
  tscBare: TscDiagnostics | null;
}

export interface Toolchain {
  rounds: number;
  scaledRounds: number;
  scales: Array<{ factor: number; operations: number; runs: ScaleRun[] }>;
  /** generated/ equals what generate makes of spec/ now (so `npm start --no-generate` serves the current contract). */
  generatedFresh: boolean;
}

/** The tsc figures of a `gateOnly` run, which checks no consumer. */
const NO_TSC: TscDiagnostics = { ms: NaN, instantiations: NaN, types: NaN, checkSeconds: NaN, memoryKb: NaN };

function parseDiagnostics(out: string, ms: number): TscDiagnostics {
  const num = (label: string) => {
    const m = new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(out);
    if (!m) throw new Error(`tsc --extendedDiagnostics printed no "${label}"\n${out.slice(0, 2000)}`);
    return Number(m[1]);
  };
  return { ms, instantiations: num("Instantiations"), types: num("Types"), checkSeconds: num("Check time"), memoryKb: num("Memory used") };
}

async function tscRun(tsconfig: string): Promise<TscDiagnostics> {
  const r = await timed(BIN("tsc"), ["-p", tsconfig, "--extendedDiagnostics"]);
  return parseDiagnostics(r.stdout, r.ms);
}

/** A scratch copy laid out like the repository: spec/, generated/, src/ (declarations only), the consumer. */
function prepareCopy(dir: string, factor: number, declarations: string): { operations: number } {
  const grown = growContract(factor, dir);
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.cpSync(declarations, path.join(dir, "src"), { recursive: true });
  const consumerDir = path.join(dir, CONSUMER_DIR);
  fs.mkdirSync(consumerDir, { recursive: true });
  const source = fs.readFileSync(path.join(ROOT, CONSUMER_DIR, "consumer.ts"), "utf8");
  if (!CLIENT_BLOCK.test(source)) throw new Error(`${CONSUMER_DIR}/consumer.ts lost its "// --- client ---" block`);
  const tsconfig = JSON.parse(fs.readFileSync(path.join(ROOT, CONSUMER_DIR, "tsconfig.json"), "utf8"));
  fs.writeFileSync(path.join(consumerDir, "consumer.ts"), source);
  fs.writeFileSync(path.join(consumerDir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  fs.writeFileSync(path.join(consumerDir, "bare.ts"), source.replace(CLIENT_BLOCK, BARE_CLIENT));
  fs.writeFileSync(path.join(consumerDir, "tsconfig.bare.json"), JSON.stringify({ ...tsconfig, files: ["bare.ts"] }, null, 2));
  return { operations: grown.operations };
}

function sameFiles(a: string, b: string, names: string[]): boolean {
  return names.every((n) => {
    try {
      return fs.readFileSync(path.join(a, n)).equals(fs.readFileSync(path.join(b, n)));
    } catch {
      return false;
    }
  });
}

/**
 * `gateOnly` (the bench's `gate` section): ×1 only, generate, lint and the gate, no tsc. The gate runs twice a
 * round: with CHECK_BREAKING_CACHE=off (cold), and with a cache in the scratch folder primed before the rounds (warm).
 */
export async function toolchain(o: { factors: number[]; rounds: number; scaledRounds: number; say: (s: string) => void; gateOnly?: boolean }): Promise<Toolchain> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-bench-toolchain-"));
  try {
    // The client's declarations, as the package ships them (dist/*.d.ts); they do not depend on the contract's size.
    const declarations = path.join(scratch, "declarations");
    await timed(BIN("tsc"), ["-p", "tsconfig.build.json", "--emitDeclarationOnly", "--outDir", declarations, "--sourceMap", "false", "--declarationMap", "false", "--inlineSources", "false"]);
    const copies = new Map<number, { dir: string; operations: number }>();
    for (const f of o.factors) {
      const dir = path.join(scratch, `x${f}`);
      copies.set(f, { dir, ...prepareCopy(dir, f, declarations) });
    }
    let generatedFresh = false;
    const gateArgs = (dir: string) => ["run", "--silent", "check:breaking", "--", "--spec", `${dir}/spec/openapi.yaml`, "--head", `${dir}/generated/openapi.yaml`];
    const gateEnv = (cache: string) => ({ env: { ...NPM_ENV, CHECK_BREAKING_CACHE: cache } });
    const warmCache = path.join(scratch, "gate-cache");
    let primed = false;
    const runs = new Map<number, ScaleRun[]>(o.factors.map((f) => [f, []]));
    // Round by round, each scale in turn; ×1 gets `rounds` runs, the grown copies `scaledRounds` (they take most
    // of the time). The bare openapi-fetch consumer is checked in every ×1 run and once per grown copy: its
    // instantiation count does not vary between runs, and its check time is compared at ×1 only.
    for (let round = 0; round < Math.max(o.rounds, o.scaledRounds); round++) {
      for (const f of o.factors) {
        if (round >= (f === 1 ? o.rounds : o.scaledRounds)) continue;
        const { dir, operations } = copies.get(f)!;
        const gen = await timed(NPM, ["run", "--silent", "generate", "--", `--root=${dir}/spec/openapi.yaml`, `--out=${dir}/generated`], { env: NPM_ENV });
        if (f === 1 && round === 0) generatedFresh = sameFiles(path.join(dir, "generated"), path.join(ROOT, "generated"), ["openapi.json", "openapi.yaml", "schema.d.ts"]);
        const lint = await timed(NPM, ["run", "--silent", "lint", "--", `${dir}/spec/openapi.yaml`], { env: NPM_ENV });
        if (f === 1 && !primed) primed = !!(await timed(NPM, gateArgs(dir), gateEnv(warmCache)));
        const gate = f === 1 ? await timed(NPM, gateArgs(dir), gateEnv("off")) : null;
        const warm = f === 1 ? await timed(NPM, gateArgs(dir), gateEnv(warmCache)) : null;
        const consumerDir = path.join(dir, CONSUMER_DIR);
        const tsc = o.gateOnly ? NO_TSC : await tscRun(path.join(consumerDir, "tsconfig.json"));
        const tscBare = !o.gateOnly && (f === 1 || round === 0) ? await tscRun(path.join(consumerDir, "tsconfig.bare.json")) : null;
        o.say(
          `  round ${round + 1} ×${String(f).padEnd(2)} (${operations} ops)  generate ${(gen.ms / 1000).toFixed(1)} s  lint ${(lint.ms / 1000).toFixed(1)} s  ${gate && warm ? `gate ${(gate.ms / 1000).toFixed(1)} s (cached ${(warm.ms / 1000).toFixed(1)} s)  ` : ""}` +
            (o.gateOnly ? "" : `tsc ${(tsc.ms / 1000).toFixed(1)} s (${tsc.instantiations} instantiations${tscBare ? `; bare openapi-fetch ${tscBare.instantiations}` : ""})`),
        );
        runs.get(f)!.push({ generateMs: gen.ms, lintMs: lint.ms, tsc, tscBare, ...(gate && warm ? { gateMs: gate.ms, gateWarmMs: warm.ms } : {}) });
      }
    }
    return {
      rounds: o.rounds,
      scaledRounds: o.scaledRounds,
      scales: o.factors.map((f) => ({ factor: f, operations: copies.get(f)!.operations, runs: runs.get(f)! })),
      generatedFresh,
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Median of one measure of a scale's runs (runs where it is missing are skipped). */
export function scaleMedian(scale: { runs: ScaleRun[] }, pick: (r: ScaleRun) => number | undefined): number {
  return median(scale.runs.map(pick).filter((x): x is number => x !== undefined));
}
