// What the in-process path (createSimulation, src/mock/homes/node/simulation.ts) still takes from Node's own modules, file by
// file: the list in docs/architecture.md, compared with esbuild's view of what a bundle of it imports. A file that
// stops needing a node:* module (WebCrypto for node:crypto, say) must leave the list, and no file may join it
// unseen: the list only shrinks on purpose, towards a core that runs in a browser.
import { builtinModules } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";

const BUILTIN = new Set(builtinModules);
const BEGIN = "<!-- in-process node imports: begin -->";
const END = "<!-- in-process node imports: end -->";

async function actual(): Promise<string[]> {
  const r = await build({
    entryPoints: [path.join(REPO_ROOT, "src/mock/homes/node/simulation.ts")],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    metafile: true,
    logLevel: "error",
    external: ["better-sqlite3", "bufferutil", "utf-8-validate", "@stoplight/prism-http"],
  });
  const lines: string[] = [];
  for (const [file, info] of Object.entries(r.metafile!.inputs)) {
    if (!file.startsWith("src/")) continue;
    const node = [...new Set(info.imports.map((i) => i.path.replace(/^node:/, "")).filter((p) => BUILTIN.has(p)))].sort();
    if (node.length) lines.push(`- \`${file}\`: ${node.join(", ")}`);
  }
  return lines.sort();
}

describe("the in-process path's node:* imports", () => {
  it("are those docs/architecture.md lists", { timeout: 60_000 }, async () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, "docs/architecture.md"), "utf8");
    const listed = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim().split("\n").filter(Boolean);
    expect(doc.indexOf(BEGIN)).toBeGreaterThan(0);
    expect(listed).toEqual(await actual());
  });
});
