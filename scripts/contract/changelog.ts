// `npm run changelog`: the changes since the released baseline as Markdown release notes, one entry per operation
// or resource under Breaking changes, New, Changed and Deprecated (scripts/lib/diff/changelog-notes.ts). Prints them, and
// writes them to --out when given.
//
//   npm run changelog -- [--base <file>] [--head <file>] [--out <file>] [--title <text>]
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { compare, DiffError, rel } from "../lib/diff/diff.js";
import { markdown } from "../lib/diff/diff-report.js";

try {
  const { values } = parseArgs({
    options: { base: { type: "string" }, head: { type: "string" }, out: { type: "string" }, title: { type: "string" } },
  });
  const notes = markdown(await compare({ base: values.base, head: values.head }), { title: values.title });
  process.stdout.write(notes);
  if (values.out) {
    await fs.mkdir(path.dirname(path.resolve(values.out)), { recursive: true });
    await fs.writeFile(values.out, notes);
    console.error(`changelog: wrote ${rel(path.resolve(values.out))}`);
  }
} catch (e) {
  console.error(`changelog could not run: ${e instanceof DiffError ? e.message : (e as Error).stack}`);
  process.exitCode = 2;
}
