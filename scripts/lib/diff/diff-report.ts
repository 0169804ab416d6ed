// How the versioning gate shows a comparison: a terminal report, GitHub Actions annotations, and Markdown release
// notes grouped by impact.
import { noteLines } from "./changelog-notes.js";
import { isError, majorsProblem, nextVersion, rel, releaseImpact, unusedNote } from "./diff.js";
import type { Change, Comparison, Impact, Location } from "./diff-types.js";
import { reached } from "./diff-pointer.js";

/** How many operations the terminal names before "and N more". */
export const FOLD = 10;
const withOps = (x: Change, fold?: number) => (x.operations?.length ? `${x.message} ${reached(x.operations, fold)}` : x.message);

const MARK: Record<Impact, string> = { major: "✖ major", minor: "+ minor", patch: "· patch" };

const fileLine = (l: Location) => `${l.file}${l.line ? `:${l.line}:${l.col}` : ""}`;

/** The logical pointer, then (when the node really lives elsewhere, e.g. a component) its own pointer and line. */
const at = (x: Change) => {
  const l = x.location;
  return l ? `${x.pointer}${l.pointer !== x.pointer ? ` → ${l.pointer}` : ""} (${fileLine(l)})` : x.pointer;
};

/** How many changes of each impact; a major change rated `warning` or `info` is counted as such, not as major. */
export function counts(changes: Change[]): string {
  const n = (i: Impact) => changes.filter((c) => c.impact === i && (i !== "major" || isError(c))).length;
  const rated = (s: "warning" | "info") => changes.filter((c) => c.impact === "major" && !isError(c) && (c.severity ?? "info") === s).length;
  const extra = (["warning", "info"] as const).filter((s) => rated(s)).map((s) => `, ${rated(s)} ${s}`).join("");
  return `${n("major")} major${extra}, ${n("minor")} minor, ${n("patch")} patch`;
}

/** What needs a release: the smallest next version, or why there is none (only an error breaks /v1). */
export function releaseHint(c: Comparison): string {
  const impact = releaseImpact(c);
  if (impact === "major") return "no release of /v1 can carry these changes";
  if (!impact) return `nothing to release since ${c.base.version}`;
  return `the next release needs info.version ${nextVersion(c.base.version, impact)} or later (${impact})`;
}

/** The terminal report: every major and minor change with where it is; patch changes only with `all`. */
export function textReport(c: Comparison, problems: string[], opts: { all?: boolean } = {}): string {
  const lines = [`${rel(c.base.file)} (${c.base.version}) → ${rel(c.head.file)} (${c.head.version})`, ""];
  const shown = c.changes.filter((x) => opts.all || x.impact !== "patch");
  for (const x of shown) {
    lines.push(`${MARK[x.impact]}  ${x.where}`);
    lines.push(`      ${x.rule ? `${x.rule}: ` : ""}${withOps(x, FOLD)}`);
    lines.push(`      at ${at(x)}`);
    if (x.severity === "warning") lines.push("      severity: warning (scripts/breaking/checks.yaml), does not fail the gate");
    if (x.accepted) lines.push(`      accepted in scripts/breaking/ignore.yaml: ${x.accepted}`);
  }
  const hidden = c.changes.length - shown.length;
  if (shown.length) lines.push("");
  lines.push(`${counts(c.changes)}${hidden ? ` (${hidden} patch change${hidden === 1 ? "" : "s"} not listed; --all lists them)` : ""}; ${releaseHint(c)}.`);
  for (const a of c.unusedAccepted ?? []) if (!problems.some((p) => p.startsWith(unusedNote(a)))) lines.push(`! ${unusedNote(a)}`);
  for (const p of problems) lines.push(`✖ ${p}`);
  lines.push(problems.length ? "check:breaking FAILED" : "check:breaking passed");
  return lines.join("\n");
}

// https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#setting-an-error-message
const escData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escProp = (s: string) => escData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

/** One `::error` per breaking change (placed on its line in the bundle), one `::error` per other gate problem. */
export function githubAnnotations(c: Comparison, problems: string[]): string {
  const out: string[] = [];
  for (const x of c.changes.filter((y) => y.impact === "major")) {
    const l = x.location;
    const place = l ? `file=${escProp(l.file)}${l.line ? `,line=${l.line},col=${l.col}` : ""},` : "";
    out.push(`::error ${place}title=${escProp(`Breaking change (${x.rule || x.kind})`)}::${escData(`${x.where}: ${x.message} [${x.pointer}]`)}`);
  }
  for (const p of problems) out.push(`::error title=check%3Abreaking::${escData(p)}`);
  return out.join("\n");
}

/**
 * Release notes: one Markdown section, one entry per operation or resource, grouped as breaking changes, new,
 * changed and deprecated (scripts/lib/diff/changelog-notes.ts says each change in words).
 */
export function markdown(c: Comparison, opts: { title?: string } = {}): string {
  const title = opts.title ?? (c.head.version === c.base.version ? `Unreleased (since ${c.base.version})` : `${c.head.version} (since ${c.base.version})`);
  const lines = [`## ${title}`, ""];
  if (!c.changes.length) lines.push("No changes to the contract.", "");
  lines.push(...noteLines(c));
  return lines.join("\n");
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** JUnit XML for CI test reports: one test case per change, failed when it is an error the ignore file does not accept. */
export function junit(c: Comparison, problems: string[]): string {
  const failing = (x: Change) => (x.severity ?? (x.impact === "major" ? "error" : "info")) === "error" && !x.accepted;
  const cases = c.changes.map((x) => {
    const name = xml(`${x.rule || x.kind} ${x.where}`);
    const body = failing(x) ? `<failure message="${xml(withOps(x))}" type="${xml(x.rule || x.impact)}">${xml(`${x.pointer} ${x.location ? fileLine(x.location) : ""}`)}</failure>` : "";
    return `    <testcase classname="check-breaking.${x.impact}" name="${name}">${body}</testcase>`;
  });
  // One failure per breaking change: the gate's summary of them ("2 breaking changes since …") is no failure of its own.
  const failed = c.changes.filter(failing).length;
  const own = problems.filter((p) => !(failed && p === majorsProblem(c)));
  for (const p of own) cases.push(`    <testcase classname="check-breaking.gate" name="gate"><failure message="${xml(p)}"/></testcase>`);
  const failures = failed + own.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites><testsuite name="check-breaking" tests="${cases.length}" failures="${failures}">`,
    ...cases,
    "</testsuite></testsuites>",
  ].join("\n");
}

/** A pull-request comment: the verdict first, then the changes grouped as the release notes group them. */
export function prComment(c: Comparison, problems: string[]): string {
  const verdict = problems.length ? `**check:breaking failed**\n\n${problems.map((p) => `- ${p}`).join("\n")}` : "**check:breaking passed**";
  const reach = c.changes.filter((x) => x.impact !== "patch" && x.operations?.length).map((x) => `- ${MARK[x.impact]} ${x.where}${x.rule ? ` (\`${x.rule}\`)` : ""}: ${reached(x.operations)}`);
  const reaches = reach.length ? `\n### What each change reaches\n\n${reach.join("\n")}\n` : "";
  return `${verdict}\n\n${counts(c.changes)}; ${releaseHint(c)}.\n\n${markdown(c, { title: "Contract changes" })}${reaches}`;
}
