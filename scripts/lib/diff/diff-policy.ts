// The gate's policy over a comparison: a severity per check from scripts/breaking/checks.yaml, and the accepted
// breaks of scripts/breaking/ignore.yaml (each with its reason). The gate fails on any `error` not accepted.
import fs from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import type { AcceptedEntry, Change, Impact } from "./diff-types.js";
import { ROOT } from "../paths.js";

/** A policy file the gate cannot use (check-breaking exits 2 on it, as on any comparison that cannot run). */
export class PolicyError extends Error {}
const rel = (file: string) => path.relative(ROOT, file);

export type Severity = "error" | "warning" | "info";
export const SEVERITIES: Severity[] = ["error", "warning", "info"];
export const CHECKS_FILE = path.join(ROOT, "scripts/breaking/checks.yaml");
export const IGNORE_FILE = path.join(ROOT, "scripts/breaking/ignore.yaml");

export interface Policy {
  impacts: Record<Impact, Severity>;
  checks: Record<string, Severity>;
  accepted: AcceptedEntry[];
}

const readYaml = async (file: string) => {
  try {
    return parse(await fs.readFile(file, "utf8")) ?? {};
  } catch (e) {
    throw new PolicyError(`${rel(file)} cannot be read: ${(e as Error).message}`);
  }
};

export async function loadPolicy(checksFile = CHECKS_FILE, ignoreFile = IGNORE_FILE): Promise<Policy> {
  const checks = await readYaml(checksFile);
  const ignore = await readYaml(ignoreFile);
  for (const [where, map] of [["impacts", checks.impacts], ["checks", checks.checks]] as const) {
    for (const [k, v] of Object.entries(map ?? {})) {
      if (!SEVERITIES.includes(v as Severity)) throw new PolicyError(`${rel(checksFile)}: ${where}.${k} is ${JSON.stringify(v)}; use one of ${SEVERITIES.join(", ")}`);
    }
  }
  const accepted = (ignore.accepted ?? []) as Policy["accepted"];
  accepted.forEach((a, i) => {
    if (!a?.rule || (!a?.pointer && !a?.operation)) throw new PolicyError(`${rel(ignoreFile)}: accepted[${i}] needs a rule and a pointer (either one the gate prints) or an operation`);
    if (a.security !== undefined && typeof a.security !== "boolean") throw new PolicyError(`${rel(ignoreFile)}: accepted[${i}].security must be true or false`);
    if (typeof a.reason !== "string" || !a.reason.trim()) throw new PolicyError(`${rel(ignoreFile)}: accepted[${i}] (${a.rule} at ${a.pointer ?? a.operation}) has no reason; every accepted break carries one`);
  });
  return { impacts: { major: "error", minor: "info", patch: "info", ...checks.impacts }, checks: checks.checks ?? {}, accepted };
}

/**
 * Each change's severity (its rule's, else its impact's), and the reason when it is an accepted break. A rule rated
 * `error` rates its breaking changes: the same rule's additions (a code gained by an `x-extensible-enum`, a state
 * added to a lifecycle) are not breaks, and keep their impact's severity.
 */
export function judge(changes: Change[], policy: Policy): Change[] {
  return changes.map((c) => {
    const ruled = c.rule.split(", ").map((r) => policy.checks[r]).find(Boolean);
    const severity = ruled === undefined || (ruled === "error" && c.impact !== "major") ? policy.impacts[c.impact] : ruled;
    const accepted = policy.accepted.find((a) => matches(a, c));
    return { ...c, severity, ...(accepted && { accepted: accepted.reason }), ...(accepted?.security === true && { security: true }) };
  });
}

/**
 * Does an ignore entry accept a change? Its rule is one of the change's, and its pointer is either pointer the gate
 * prints (`at A → B`: the logical one, through an operation, or where the node lives), or its operation (an
 * operationId, or the `operationId (METHOD /path)` label) is one the change reaches.
 */
export function matches(a: AcceptedEntry, c: Change): boolean {
  if (!c.rule.split(", ").includes(a.rule)) return false;
  if (a.pointer !== undefined && (a.pointer === c.pointer || a.pointer === c.location?.pointer)) return true;
  return a.operation !== undefined && (c.operations ?? []).some((o) => o === a.operation || o.split(" ")[0] === a.operation);
}

/** The entries that accepted no change of the comparison (left over after the break was fixed, or mistyped). */
export function unusedEntries(changes: Change[], policy: Policy): AcceptedEntry[] {
  return policy.accepted.filter((a) => !changes.some((c) => matches(a, c)));
}
