// json-positions.ts finds a value where yaml's parser (which json-file.ts used before, decision MC11) finds it: every
// path of several JSON texts, pretty and compact, with escapes, unicode, nesting, and paths that are not there.
import fs from "node:fs";
import path from "node:path";
import { LineCounter, parseDocument, type Node } from "yaml";
import { describe, expect, it } from "vitest";
import { jsonValueOffset } from "../../../../src/mock/core/state/json-positions.js";
import { parseJsonSource, type JsonPath } from "../../../../src/mock/core/state/json-file.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";

/** Where yaml's parser puts the value at a path (the old json-file.ts). */
function yamlAt(text: string): (p: JsonPath) => string {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, keepSourceTokens: false });
  return (p) => {
    const node = (p.length ? doc.getIn(p as Array<string | number>, true) : doc.contents) as Node | undefined;
    const pos = lc.linePos(node?.range?.[0] ?? 0);
    return `f:${pos.line}:${pos.col}`;
  };
}

function paths(v: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

const TRICKY = {
  "a\"b": ["x,]}", { "k:{": "\\\"", n: -1.5e3, t: true, f: null }, [], {}, [[1, [2, "]"]]]],
  "é ü 𝄞": { "": "empty key", "\\": "\n\t" },
  long: "x".repeat(50),
  last: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};

const TEXTS: Array<[string, string]> = [
  ["tricky, pretty", JSON.stringify(TRICKY, null, 2)],
  ["tricky, compact", JSON.stringify(TRICKY)],
  ["tricky, odd spacing", "  \n" + JSON.stringify(TRICKY, null, "\t").replace(/: /g, " :  ").replace(/,\n/g, "\n,")],
  ["the keys example", fs.readFileSync(path.join(REPO_ROOT, "docs/mock-keys.example.json"), "utf8")],
  ["the contract's examples", JSON.stringify(Object.values(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "generated/openapi.json"), "utf8")).components.examples).slice(0, 12), null, 1)],
];

describe("positions in a JSON text", () => {
  for (const [name, text] of TEXTS) {
    it(`are yaml's for every path: ${name}`, () => {
      const data = JSON.parse(text);
      const all = paths(data);
      const missing: JsonPath[] = [["nope"], [0], ["last", 99], ["last", "x"], ...all.slice(1, 20).map((p) => [...p, "zz"])];
      const src = parseJsonSource(text, "f", (m) => new Error(m));
      const ours = [...all, ...missing].map((p) => src.at(p));
      const theirs = yamlAt(text);
      expect(ours).toEqual([...all, ...missing].map(theirs));
      expect(all.length).toBeGreaterThan(15);
    });
  }

  it("is the document for a path that is not there", () => {
    expect(jsonValueOffset(' {"a": [1]}', ["b"])).toBe(0);
    expect(jsonValueOffset(' {"a": [1]}', ["a", 0])).toBe(8);
  });
});
