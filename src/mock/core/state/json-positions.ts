// Where a value sits in a JSON text: the offset of the value at a path, so an error names the line and column of
// what is wrong (json-file.ts). JSON.parse gives values, not where they are; yaml's parser knows positions but is
// ~30 KiB gzip in the browser simulation (decision MC11), so jsonc-parser's syntax tree gives them (a few KiB).
import { findNodeAtLocation, parseTree } from "jsonc-parser";

/** The offset where the value at `path` starts in `text` (valid JSON), or 0 (the document) when there is none there. */
export function jsonValueOffset(text: string, path: ReadonlyArray<string | number>): number {
  const root = parseTree(text);
  return (root && findNodeAtLocation(root, [...path])?.offset) ?? 0;
}
