// Fixtures as text under Node (platform.ts FixturesFormat): JSON or YAML (JSON is YAML), read with yaml's parser
// with positions, so every error names its line and column; a fixtures object given to createSimulation is written
// as YAML. The browser reads JSON only, without yaml's parser (browser.ts, decision MC11).
import { LineCounter, parseDocument, stringify, type Node } from "yaml";
import { FixturesError } from "../../core/controls/fixtures.js";
import type { FixturesFormat } from "../../core/pipeline/platform.js";
import type { JsonPath, JsonSource } from "../../core/state/json-file.js";

function read(text: string, file: string): JsonSource {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const p = lc.linePos(err.pos[0]);
    throw new FixturesError(`${file}:${p.line}:${p.col}: not JSON or YAML: ${err.message.split("\n")[0]}`);
  }
  return {
    data: doc.toJS({ maxAliasCount: 100 }),
    at(path: JsonPath) {
      const node = (path.length ? doc.getIn(path as Array<string | number>, true) : doc.contents) as Node | undefined;
      const p = lc.linePos(node?.range?.[0] ?? 0);
      return `${file}:${p.line}:${p.col}`;
    },
  };
}

export const yamlFixtures: FixturesFormat = { read, write: (fixtures) => stringify(fixtures) };
