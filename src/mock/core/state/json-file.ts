// JSON files the mock reads at start (the keys file, the state file): parsed with positions, so an error names
// the file, line and column of the value that is wrong, not only what is wrong.
import { withoutExcerpt } from "../pipeline/log.js";
import { jsonValueOffset } from "./json-positions.js";

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonSource {
  data: unknown;
  /** `file:line:col` of the value at `path` (of the whole document when there is none there). */
  at(path: JsonPath): string;
}

/**
 * Parses `text` (the contents of `file`). Invalid JSON throws `makeError("file:line:col: invalid JSON: …")`.
 * Positions of values come from a scan of the text (json-positions.ts): JSON.parse gives values, not where they are.
 */
export function parseJsonSource(text: string, file: string, makeError: (message: string) => Error): JsonSource {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const msg = withoutExcerpt((e as Error).message);
    const pos = /at position (\d+)/.exec(msg);
    const { line, col } = lineCol(text, pos ? Number(pos[1]) : text.length);
    throw makeError(`${file}:${line}:${col}: invalid JSON: ${msg.replace(/ in JSON at position \d+.*$/, "")}`);
  }
  return {
    data,
    at(path) {
      const p = lineCol(text, jsonValueOffset(text, path));
      return `${file}:${p.line}:${p.col}`;
    },
  };
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}
