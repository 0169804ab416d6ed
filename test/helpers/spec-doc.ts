// Reads the interface specification (docs/interface-specification.md, a verbatim copy of the seed) so that
// conformance tests take their facts from the document itself rather than from a second hand-typed copy.
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/lib/paths.js";

export const SPEC_DOC_PATH = path.join(ROOT, "docs/interface-specification.md");
export const specText = fs.readFileSync(SPEC_DOC_PATH, "utf8");

/** docs/decisions/, the decision records: one file per area, indexed by its README.md. */
export const DECISIONS_DIR = path.join(ROOT, "docs/decisions");

/** One area file of the decision records (`contract` for docs/decisions/contract.md, where the contract's
 * interpretations, the documented transitions among them, are written). */
export const decisionsPath = (area: string): string => path.join(DECISIONS_DIR, `${area}.md`);

/** The text of one area file of the decision records. */
export const decisionsText = (area: string): string => fs.readFileSync(decisionsPath(area), "utf8");

/** The text of the section whose heading starts with `title` (any level), up to the next heading of that level or higher. */
export function section(title: string, text = specText): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^#{2,4} /.test(l) && l.replace(/^#+ /, "").startsWith(title));
  if (start < 0) throw new Error(`no section "${title}" in ${text === specText ? "the interface specification" : "the document"}`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The markdown tables of a text, each as rows of cells keyed by header (backticks stripped). */
export function tables(text: string): Array<Array<Record<string, string>>> {
  const out: Array<Array<Record<string, string>>> = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("|") || !lines[i + 1]?.startsWith("|---")) continue;
    const cells = (l: string) => l.split("|").slice(1, -1).map((c) => c.trim());
    const head = cells(lines[i]!);
    const rows: Array<Record<string, string>> = [];
    for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++) {
      const c = cells(lines[i]!);
      rows.push(Object.fromEntries(head.map((h, j) => [h, c[j] ?? ""])));
    }
    out.push(rows);
  }
  return out;
}

/** The first table of a section. */
export function table(title: string, index = 0): Array<Record<string, string>> {
  const t = tables(section(title))[index];
  if (!t) throw new Error(`section "${title}" has no table #${index}`);
  return t;
}

/** The backticked tokens of a cell: "`/v1/privacy`, `/v1/consent`" → ["/v1/privacy", "/v1/consent"]. */
export function codes(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}
