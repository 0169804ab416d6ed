// `npm run check:breaking`: the versioning gate. Compares the current bundle (generated/openapi.yaml) with the
// released baseline (generated/released/openapi.yaml) and fails on any breaking (major) change; with --check-version it also
// fails when info.version does not match the changes (additions: minor bump, fixes/docs: patch bump).
//
//   npm run check:breaking -- [--base <file>] [--head <file>] [--check-version] [--format text|github-actions] [--all]
//
// Exit codes: 0 passed, 1 the gate failed, 2 the comparison could not run (missing file, redocly error).
import { parseArgs } from "node:util";
import { compare, DiffError, gateProblems } from "./lib/diff.js";
import { githubAnnotations, textReport } from "./lib/diff-report.js";

const USAGE = "usage: check-breaking [--base <file>] [--head <file>] [--check-version] [--format text|github-actions] [--all]";

try {
  const { values } = parseArgs({
    options: {
      base: { type: "string" },
      head: { type: "string" },
      "check-version": { type: "boolean", default: false },
      format: { type: "string", default: "text" },
      all: { type: "boolean", default: false },
    },
  });
  if (values.format !== "text" && values.format !== "github-actions") throw new DiffError(`unknown --format ${values.format}\n${USAGE}`);
  const cmp = await compare({ base: values.base, head: values.head });
  const problems = gateProblems(cmp, { checkVersion: values["check-version"] });
  if (values.format === "github-actions") {
    const notes = githubAnnotations(cmp, problems);
    if (notes) console.log(notes);
  }
  console.log(textReport(cmp, problems, { all: values.all }));
  process.exitCode = problems.length ? 1 : 0;
} catch (e) {
  const known = e instanceof DiffError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  console.error(`check:breaking could not run: ${known ? (e as Error).message : (e as Error).stack}`);
  if ((e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) console.error(USAGE);
  process.exitCode = 2;
}
