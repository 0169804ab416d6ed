// `npm run score`: `redocly score` of the contract (agent readiness, 0-100), its subscores, and what the change
// being made costs: the operations whose score fell against the base (the bundle committed at the merge-base with
// main, or at HEAD), each with the parameters and properties it added without a description and what else it
// lacks (lib/score-diff.ts). `--min N` is the floor (npm test passes the committed one). Exit codes: 0 at or above
// the floor, 1 below it, 2 when the score could not be computed.
//   npm run score -- [--min N] [--json] [--base <bundle.json | git ref>] [--root spec/openapi.yaml]
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { ROOT, SPEC_ROOT } from "../lib/paths.js";
import { bundleRoot, redocly } from "../lib/redocly.js";
import { changeHotspots, formatHotspot, type Hotspot, type ScoreReport } from "../lib/diff/score-diff.js";

export type { ScoreReport } from "../lib/diff/score-diff.js";
const git = promisify(execFile);

/** Runs `redocly score --format json` on a contract root or bundle. */
export async function score(root = SPEC_ROOT): Promise<ScoreReport> {
  const res = await redocly(["score", root, "--format", "json"]);
  const start = res.stdout.indexOf("{");
  if (!res.ok || start < 0) throw new Error(`redocly score failed:\n${res.output}`);
  const report = JSON.parse(res.stdout.slice(start)) as ScoreReport;
  if (typeof report.agentReadiness !== "number") throw new Error("redocly score: no agentReadiness in its JSON output");
  return report;
}

/** The base bundle: a file, or generated/openapi.json at a git ref (default: the merge-base with main, else HEAD). */
async function baseBundle(base: string | undefined, scratch: string): Promise<{ file: string; label: string }> {
  if (base && (await fs.stat(base).then((s) => s.isFile(), () => false))) return { file: path.resolve(base), label: base };
  const ref = base ?? (await git("git", ["merge-base", "HEAD", "main"], { cwd: ROOT }).then((r) => r.stdout.trim(), () => "HEAD"));
  const { stdout } = await git("git", ["show", `${ref}:generated/openapi.json`], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const file = path.join(scratch, "base.json");
  await fs.writeFile(file, stdout);
  return { file, label: base ?? `${ref.slice(0, 8)} (merge-base with main)` };
}

export interface ScoreChange {
  head: ScoreReport;
  /** Undefined when no base could be read (no git, no committed bundle): the score is shown alone. */
  base?: ScoreReport;
  baseLabel: string;
  hotspots: Hotspot[];
}

/** Scores the contract at `root` and at the base, and names what the change costs. */
export async function scoreChange(root = SPEC_ROOT, base?: string): Promise<ScoreChange> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "score-"));
  try {
    const b = await baseBundle(base, scratch).catch((e: Error) => {
      if (base) throw e; // asked for: say why it cannot be read
      return undefined;
    });
    if (!b) return { head: await score(root), baseLabel: "no base (not a git checkout with generated/openapi.json)", hotspots: [] };
    const headFile = path.join(scratch, "head.json");
    await bundleRoot(root, headFile);
    const [head, baseReport, headDoc, baseDoc] = await Promise.all([score(root), score(b.file), fs.readFile(headFile, "utf8"), fs.readFile(b.file, "utf8")]);
    const hotspots = changeHotspots(baseReport, head, { base: JSON.parse(baseDoc), head: JSON.parse(headDoc) });
    return { head, base: baseReport, baseLabel: b.label, hotspots };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

function print(c: ScoreChange): void {
  const { head: r, base } = c;
  const delta = base ? Math.round((r.agentReadiness - base.agentReadiness) * 10) / 10 : 0;
  const against = base ? `${base.agentReadiness} at ${c.baseLabel}, ${delta >= 0 ? "+" : ""}${delta}` : c.baseLabel;
  console.log(`redocly score (agent readiness): ${r.agentReadiness}/100 (${against}), discoverability ${r.discoverability}%`);
  console.log(`  ${Object.entries(r.subscores).map(([k, v]) => `${k} ${pct(v)}`).join(", ")}`);
  if (!base) return;
  if (!c.hotspots.length) console.log("  this change costs no operation any points");
  else {
    console.log("  costing the most points in this change:");
    for (const h of c.hotspots) console.log(`    ${formatHotspot(h)}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { values } = parseArgs({ options: { min: { type: "string" }, json: { type: "boolean", default: false }, base: { type: "string" }, root: { type: "string" } } });
    const min = values.min === undefined ? undefined : Number(values.min);
    if (min !== undefined && !Number.isFinite(min)) throw new Error(`--min must be a number, got ${values.min}`);
    const c = await scoreChange(values.root ? path.resolve(values.root) : SPEC_ROOT, values.base);
    if (values.json) console.log(JSON.stringify({ ...c.head, base: { label: c.baseLabel, agentReadiness: c.base?.agentReadiness ?? null }, changeHotspots: c.hotspots }, null, 2));
    else print(c);
    if (min !== undefined && c.head.agentReadiness < min) {
      console.error(`score ${c.head.agentReadiness} is below the floor ${min}: the operations above cost the most in this change (spec/README.md, "Adding one endpoint", says what the score counts)`);
      process.exitCode = 1;
    }
  } catch (e) {
    console.error(`score could not run: ${(e as Error).message}`);
    process.exitCode = 2;
  }
}
