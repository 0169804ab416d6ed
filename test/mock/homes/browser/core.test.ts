// The simulation's core runs in a browser: src/mock/homes/browser/browser.ts (createSimulation with the contract bundled, no
// Node adapters) bundles for esbuild's browser platform with no node:* module anywhere in its import graph
// (docs/architecture.md, "The core and its adapters"). esbuild refuses a node:* import on that platform, so any
// core file that takes one again fails the build here, naming the file.
import { STATUS_CODES } from "node:http";
import { builtinModules } from "node:module";
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { crc32 as nodeCrc32 } from "node:zlib";
import { STATUS_TEXT } from "../../../../src/mock/core/http/status-text.js";
import { crc32 } from "../../../../src/mock/core/content/report-files.js";
import { browserBundle } from "../../../../scripts/lib/browser-bundle.js";

describe("the core", () => {
  it("bundles for a browser with no node:* import", { timeout: 120_000 }, async () => {
    const r = await browserBundle();
    const inputs = Object.keys(r.metafile!.inputs);
    expect(inputs).toContain("src/mock/core/pipeline/pipeline.ts");
    expect(inputs).toContain("src/mock/core/store/store.ts");
    const builtin = new Set(builtinModules);
    const node = Object.entries(r.metafile!.inputs).flatMap(([file, info]) =>
      info.imports.filter((i) => i.path.startsWith("node:") || builtin.has(i.path)).map((i) => `${file} → ${i.path}`),
    );
    expect(node).toEqual([]);
  });

  it("refuses a node:* import (the check can fail)", async () => {
    const failing = build({
      stdin: { contents: 'import fs from "node:fs"; export default fs;', resolveDir: path.join(REPO_ROOT, "src/mock"), loader: "ts" },
      bundle: true,
      write: false,
      platform: "browser",
      logLevel: "silent",
    });
    await expect(failing).rejects.toThrow(/node:fs/);
  });

  it("has node:http's reason phrases and node:zlib's CRC-32 without them", () => {
    expect(Object.fromEntries(Object.entries(STATUS_TEXT))).toEqual(STATUS_CODES);
    for (const s of ["", "a", "PK\u0003\u0004 docx", "é".repeat(999)]) expect(crc32(Buffer.from(s)), s).toBe(nodeCrc32(Buffer.from(s)));
  });
});
