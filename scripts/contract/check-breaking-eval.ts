// `npm run check:breaking:eval`: how the gate judges changes it was not built on (issue 48, decision VG18). Each
// case of breaking-eval-cases.ts (drawn from oasdiff's checks) is applied to a copy of generated/openapi.json and
// compared with the bundle as it is, as `check:breaking --base … --head …` would. Prints each case's verdict, the
// share of breaking changes judged major and the non-breaking ones judged major, and fails (exit 1) under 95% or
// on any false major. A case whose target the contract lacks is listed as not applicable, and counted nowhere.
//
//   npm run check:breaking:eval [-- --only=<id substring>]
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Json } from "../lib/contract.js";
import { compare, isError } from "../lib/diff/diff.js";
import { GENERATED } from "../lib/paths.js";
import { CASES, type EvalCase } from "./breaking-eval-cases.js";

export interface Verdict {
  id: string;
  breaking: boolean;
  /** What the case changed, or why it could not apply. */
  what: string;
  applicable: boolean;
  major: boolean;
  /** The rules of the changes the gate fails on (or, for a missed break, every change it saw). */
  rules: string[];
}

export async function evaluate(cases: EvalCase[], concurrency = 2): Promise<Verdict[]> {
  const baseFile = path.join(GENERATED, "openapi.json");
  const base: Json = JSON.parse(await fs.readFile(baseFile, "utf8"));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "breaking-eval-"));
  try {
    const out: Verdict[] = new Array(cases.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < cases.length; i = next++) out[i] = await judge(cases[i]!, i, base, baseFile, dir);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
    return out;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function judge(c: EvalCase, i: number, base: Json, baseFile: string, dir: string): Promise<Verdict> {
  const doc = structuredClone(base);
  let what: string;
  try {
    what = c.apply(doc);
  } catch (e) {
    return { id: c.id, breaking: c.breaking, what: (e as Error).message, applicable: false, major: false, rules: [] };
  }
  const head = path.join(dir, `case-${i}.json`);
  await fs.writeFile(head, JSON.stringify(doc));
  const cmp = await compare({ base: baseFile, head });
  const majors = cmp.changes.filter(isError);
  const rules = (majors.length ? majors : cmp.changes).map((x) => `${x.impact} ${x.rule || "(unrated)"}`);
  return { id: c.id, breaking: c.breaking, what, applicable: true, major: majors.length > 0, rules: [...new Set(rules)] };
}

export function summary(vs: Verdict[]): { breaking: number; caught: number; share: number; nonBreaking: number; falseMajors: number; notApplicable: number } {
  const done = vs.filter((v) => v.applicable);
  const breaking = done.filter((v) => v.breaking);
  const caught = breaking.filter((v) => v.major).length;
  const nonBreaking = done.filter((v) => !v.breaking);
  return { breaking: breaking.length, caught, share: breaking.length ? caught / breaking.length : 0, nonBreaking: nonBreaking.length, falseMajors: nonBreaking.filter((v) => v.major).length, notApplicable: vs.length - done.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.dirname, "check-breaking-eval.ts")) {
  const { values } = parseArgs({ options: { only: { type: "string" } } });
  const cases = CASES.filter((c) => !values.only || c.id.includes(values.only));
  const vs = await evaluate(cases);
  for (const v of vs) {
    const mark = !v.applicable ? "–" : v.major === v.breaking ? "✓" : "✖";
    console.log(`${mark} ${v.breaking ? "breaking    " : "non-breaking"} ${v.id}: ${v.what}${v.applicable ? ` → ${v.major ? "major" : "not major"} (${v.rules.join(", ") || "no change seen"})` : " (not applicable)"}`);
  }
  const s = summary(vs);
  console.log(
    `\nBreaking changes judged major: ${s.caught}/${s.breaking} (${(s.share * 100).toFixed(1)}%, goal ≥ 95%). ` +
      `Non-breaking changes judged major: ${s.falseMajors}/${s.nonBreaking} (goal 0).${s.notApplicable ? ` Not applicable to this contract: ${s.notApplicable}.` : ""}`,
  );
  process.exitCode = s.share >= 0.95 && s.falseMajors === 0 ? 0 : 1;
}
