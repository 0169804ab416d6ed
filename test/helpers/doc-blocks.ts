// The runnable blocks of the guides: a fenced block whose line before is `<!-- runnable -->` is run by
// test/docs/guides.test.ts against a mock on a free port, so a guide cannot drift from the code. The guides write
// `http://127.0.0.1:4010` (where `npm start` listens); the test puts its own mock's address there.
import fs from "node:fs";
import path from "node:path";

export const RUNNABLE_MARKER = "<!-- runnable -->";
export const NPM_START_URL = "http://127.0.0.1:4010";

export interface DocBlock {
  /** The file, relative to the repository, and the 1-based line of the block's opening fence. */
  file: string;
  line: number;
  /** The fence's language: sh, ts or python. */
  lang: string;
  code: string;
}

/** Every runnable block of one Markdown file, in order. */
export function runnableBlocks(root: string, file: string): DocBlock[] {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== RUNNABLE_MARKER) continue;
    const open = /^```(\w+)\s*$/.exec(lines[i + 1] ?? "");
    if (!open) throw new Error(`${file}:${i + 1}: ${RUNNABLE_MARKER} must stand right above a fenced block with a language`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith("```"));
    if (end < 0) throw new Error(`${file}:${i + 2}: the runnable block is never closed`);
    blocks.push({ file, line: i + 2, lang: open[1]!, code: lines.slice(i + 2, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** README.md and every guide in docs/ (not the decision records). */
export function guideFiles(root: string): string[] {
  const docs = fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs.sort()];
}
