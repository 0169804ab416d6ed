// `npm run check:breaking`: the versioning gate. Compares the current bundle (generated/openapi.yaml) with the
// released baseline (generated/released/openapi.yaml) and fails on any breaking (major) change; with --check-version it also
// fails when info.version does not match the changes (additions: minor bump, fixes/docs: patch bump).
//
//   npm run check:breaking -- [--base <file>] [--head <file>] [--spec <openapi.yaml>] [--check-version] [--format text|github-actions|markdown|junit] [--all] [--strict]
//
// It never judges a stale bundle: unless --head names another file, it refuses (exit 2) when generated/openapi.yaml
// is not what spec/ (or --spec) makes now, told by the hash of the inputs `npm run generate` recorded beside it
// (generated/inputs.json, inputs-digest.ts) instead of generating again.
//
// An entry of scripts/breaking/ignore.yaml that matched no change is reported; with --strict it fails the gate.
//
// Exit codes: 0 passed, 1 the gate failed, 2 the comparison could not run (missing file, redocly error).
import path from "node:path";
import { parseArgs } from "node:util";
import { staleness } from "./inputs-digest.js";
import { SPEC_ROOT } from "../lib/paths.js";
import { compare, DiffError, gateProblems, HEAD, rel } from "../lib/diff/diff.js";
import { PolicyError } from "../lib/diff/diff-policy.js";
import { githubAnnotations, junit, prComment, textReport } from "../lib/diff/diff-report.js";

const USAGE = "usage: check-breaking [--base <file>] [--head <file>] [--spec <openapi.yaml>] [--check-version] [--format text|github-actions|markdown|junit] [--all] [--strict]";

try {
  const { values } = parseArgs({
    options: {
      base: { type: "string" },
      head: { type: "string" },
      spec: { type: "string" },
      "check-version": { type: "boolean", default: false },
      format: { type: "string", default: "text" },
      all: { type: "boolean", default: false },
      strict: { type: "boolean", default: false },
    },
  });
  if (!["text", "github-actions", "markdown", "junit"].includes(values.format!)) throw new DiffError(`unknown --format ${values.format}\n${USAGE}`);
  if (values.head === undefined || values.spec !== undefined) await refuseStale(path.resolve(values.spec ?? SPEC_ROOT), path.resolve(values.head ?? HEAD));
  const cmp = await compare({ base: values.base, head: values.head });
  const problems = gateProblems(cmp, { checkVersion: values["check-version"], strict: values.strict });
  if (values.format === "github-actions") {
    const notes = githubAnnotations(cmp, problems);
    if (notes) console.log(notes);
  }
  if (values.format === "markdown") console.log(prComment(cmp, problems));
  else if (values.format === "junit") console.log(junit(cmp, problems));
  else console.log(textReport(cmp, problems, { all: values.all }));
  process.exitCode = problems.length ? 1 : 0;
} catch (e) {
  const known = e instanceof DiffError || e instanceof PolicyError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  console.error(`check:breaking could not run: ${known ? (e as Error).message : (e as Error).stack}`);
  if ((e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) console.error(USAGE);
  process.exitCode = 2;
}

/**
 * Refuses to judge `head` when it is not what generation makes of `spec` now: the hash of spec/ and the generator
 * recorded beside it by `npm run generate` (inputs-digest.ts) differs from today's, or the bundle was edited since.
 * Milliseconds, where generating again took most of the gate's time (issue 48).
 */
async function refuseStale(spec: string, head: string): Promise<void> {
  const why = await staleness(spec, path.dirname(head), [path.basename(head)]);
  if (why.length) {
    throw new DiffError(
      `${rel(head)} is stale: it is not what \`npm run generate\` makes of ${rel(spec)} now (${why.join("; ")}), ` +
        "so judging it would judge an old contract. Run `npm run generate` first.",
    );
  }
}
