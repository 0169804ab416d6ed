// The gate finds a node's line on demand, by indentation (scripts/lib/diff/yaml-lines.ts, decision VG19), instead of
// parsing the whole bundle with `yaml`. It must give `yaml`'s own answer (LineCounter, the start of the node's
// value) for every node of both committed bundles, and nothing (so the gate falls back to a full parse) where it
// cannot follow a pointer.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { yamlLocator } from "../../../../scripts/lib/diff/yaml-lines.js";
import { ROOT } from "../../../../scripts/lib/paths.js";

/** Every node's line and column as `yaml` gives them, by JSON pointer. */
function yamlLines(text: string): Map<string, [number, number]> {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
  const out = new Map<string, [number, number]>();
  const walk = (node: unknown, pointer: string): void => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (range) {
      const pos = counter.linePos(range[0]);
      out.set(pointer, [pos.line, pos.col]);
    }
    if (isMap(node)) for (const pair of node.items) walk(pair.value, `${pointer}/${String(isScalar(pair.key) ? pair.key.value : pair.key).replaceAll("~", "~0").replaceAll("/", "~1")}`);
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item, `${pointer}/${i}`));
  };
  walk(doc.contents, "#");
  return out;
}

describe("yamlLocator", () => {
  for (const file of ["generated/openapi.yaml", "generated/released/openapi.yaml"]) {
    it(`gives yaml's line and column for every node of ${file}`, { timeout: 120_000 }, () => {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      const expected = yamlLines(text);
      const locate = yamlLocator(text);
      const wrong = [...expected].filter(([p, at]) => JSON.stringify(locate(p)) !== JSON.stringify(at)).map(([p, at]) => `${p}: ${JSON.stringify(at)} ≠ ${JSON.stringify(locate(p))}`);
      expect(expected.size).toBeGreaterThan(10_000);
      expect(wrong.slice(0, 5)).toEqual([]);
    });
  }

  it("follows quoted keys, nested sequences, items that are maps and block scalars", () => {
    const text = ['# a comment', 'a:', '  "200":', '    x: 1', "  'it''s': |-", "    text: not a key", '    more', '  list:', '    - - one', '      - two', '    - k: v', '      m:', '        - 3', 'b: {}', ''].join("\n");
    const locate = yamlLocator(text);
    for (const [p, at] of yamlLines(text)) expect([p, locate(p)]).toEqual([p, at]);
  });

  it("returns nothing for a pointer it cannot follow (the gate then parses the file whole)", () => {
    const locate = yamlLocator(["a: {x: 1, y: [1, 2]}", "b:", "  - 1", ""].join("\n"));
    expect(locate("#/a/x")).toBeUndefined();
    expect(locate("#/b/5")).toBeUndefined();
    expect(locate("#/c")).toBeUndefined();
    expect(locate("#/b/0")).toEqual([3, 5]);
  });
});
