// `npm run check:breaking`: the versioning gate. Compares the current bundle (generated/openapi.yaml) with the
// released baseline (generated/released/openapi.yaml) and fails on any breaking (major) change; with --check-version it also
// fails when info.version does not match the changes (additions: minor bump, fixes/docs: patch bump).
//
//   npm run check:breaking -- [--base <file>] [--head <file>] [--spec <openapi.yaml>] [--check-version] [--format text|github-actions|markdown|junit] [--all]
//
// It never judges a stale bundle: unless --head names another file, it first generates spec/ (or --spec) into a
// scratch folder and refuses (exit 2) when generated/openapi.yaml is not what spec/ makes now.
//
// Exit codes: 0 passed, 1 the gate failed, 2 the comparison could not run (missing file, redocly error).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { generate } from "./generate.js";
import { SPEC_ROOT } from "../lib/paths.js";
import { compare, DiffError, gateProblems, HEAD, rel } from "../lib/diff/diff.js";
import { PolicyError } from "../lib/diff/diff-policy.js";
import { githubAnnotations, junit, prComment, textReport } from "../lib/diff/diff-report.js";

const USAGE = "usage: check-breaking [--base <file>] [--head <file>] [--spec <openapi.yaml>] [--check-version] [--format text|github-actions|markdown|junit] [--all]";

try {
  const { values } = parseArgs({
    options: {
      base: { type: "string" },
      head: { type: "string" },
      spec: { type: "string" },
      "check-version": { type: "boolean", default: false },
      format: { type: "string", default: "text" },
      all: { type: "boolean", default: false },
    },
  });
  if (!["text", "github-actions", "markdown", "junit"].includes(values.format!)) throw new DiffError(`unknown --format ${values.format}\n${USAGE}`);
  if (values.head === undefined || values.spec !== undefined) await refuseStale(path.resolve(values.spec ?? SPEC_ROOT), path.resolve(values.head ?? HEAD));
  const cmp = await compare({ base: values.base, head: values.head });
  const problems = gateProblems(cmp, { checkVersion: values["check-version"] });
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

/** Generates the contract into a scratch folder and refuses to judge `head` when it differs from that fresh bundle. */
async function refuseStale(spec: string, head: string): Promise<void> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "check-breaking-"));
  try {
    await generate({ root: spec, outDir: scratch, quiet: true });
    const fresh = await fs.readFile(path.join(scratch, "openapi.yaml"), "utf8");
    const judged = await fs.readFile(head, "utf8").catch(() => null);
    if (judged !== fresh) {
      throw new DiffError(
        `${rel(head)} is stale: it is not what \`npm run generate\` makes of ${rel(spec)} now, ` +
          "so judging it would judge an old contract. Run `npm run generate` first.",
      );
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
