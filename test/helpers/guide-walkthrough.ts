// A walkthrough of docs/contract.md applied as written: its YAML blocks that start with `# spec/<file>` are written
// to a copy of spec/, and `# add to spec/openapi.yaml` merges its paths and tags into the root. Each walkthrough is
// one `## Walkthrough: …` section, so the tests of two walkthroughs never apply each other's files.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { ROOT, SPEC_ROOT } from "../../scripts/lib/paths.js";

export const guide = await fs.readFile(path.join(ROOT, "docs/contract.md"), "utf8");

export interface GuideBlock {
  add: boolean;
  file: string;
  text: string;
}

/** The text of the `## <heading>` section (up to the next `## `). */
export function guideSection(heading: string): string {
  const start = guide.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`docs/contract.md has no section "## ${heading}"`);
  const end = guide.indexOf("\n## ", start + 3);
  return guide.slice(start, end < 0 ? undefined : end);
}

/** The section's YAML blocks that write or add to a file of spec/. */
export function specBlocks(section: string): GuideBlock[] {
  return [...section.matchAll(/```yaml\n# (add to )?spec\/(\S+)\n([\s\S]*?)```/g)].map((m) => ({ add: Boolean(m[1]), file: m[2]!, text: m[3]! }));
}

/** The section's fenced blocks of a language, in order. */
export function fencedBlocks(section: string, lang: string): string[] {
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

/**
 * `paths` with each added path placed where an author puts it: after the longest existing path it nests under
 * (`/v1/analyses/{analysis_id}/comments` after `/v1/analyses/{analysis_id}`, before the analysis's speakers), else
 * at the end. The order of paths must not matter to the mock or verify; placing a resource among its siblings is
 * what once showed it did (issue 48: the comments took the speakers' place).
 */
export function besideParents(paths: Record<string, unknown>, added: Record<string, unknown> = {}): Record<string, unknown> {
  const out = Object.entries(paths);
  for (const entry of Object.entries(added)) {
    let at = -1;
    out.forEach(([u], i) => {
      if (entry[0].startsWith(`${u}/`) && (at < 0 || u.length > out[at]![0].length)) at = i;
    });
    out.splice(at < 0 ? out.length : at + 1, 0, entry);
  }
  return Object.fromEntries(out);
}

/** A scratch folder holding a copy of spec/ with the blocks applied; its path. */
export async function applyToScratchSpec(blocks: GuideBlock[], prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.cp(path.dirname(SPEC_ROOT), path.join(dir, "spec"), { recursive: true });
  for (const b of blocks) {
    const file = path.join(dir, "spec", b.file);
    if (!b.add) {
      await fs.writeFile(file, b.text);
      continue;
    }
    const root = parse(await fs.readFile(file, "utf8"));
    const add = parse(b.text);
    root.paths = besideParents(root.paths, add.paths);
    root.tags = [...root.tags, ...(add.tags ?? [])];
    await fs.writeFile(file, stringify(root, { lineWidth: 0 }));
  }
  return dir;
}
