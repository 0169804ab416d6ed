// The browser simulation as it ships (scripts/lib/browser-bundle.ts: the entry and its chunks), written to a
// temporary folder and imported here: it needs no DOM, so Node runs the very files a page loads. msw is bundled in
// too, so the files import nothing from outside their folder.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Metafile } from "esbuild";
import { browserBundle } from "../../scripts/lib/browser-bundle.js";
import type { createSimulation } from "../../src/mock/homes/browser/browser.js";

export interface BuiltBrowserSimulation {
  createSimulation: typeof createSimulation;
  meta: Metafile;
  dispose(): Promise<void>;
}

export async function builtBrowserSimulation(): Promise<BuiltBrowserSimulation> {
  const out = await fs.mkdtemp(path.join(os.tmpdir(), "browser-simulation-"));
  try {
    const r = await browserBundle({ outdir: out, write: true, external: [] });
    const mod = (await import(path.join(out, "index.js"))) as { createSimulation: typeof createSimulation };
    return { createSimulation: mod.createSimulation, meta: r.metafile!, dispose: () => fs.rm(out, { recursive: true, force: true }) };
  } catch (e) {
    await fs.rm(out, { recursive: true, force: true });
    throw e;
  }
}
