// The simulation's browser bundle (src/mock/homes/browser/browser.ts): what @avt/mock/browser ships (scripts/publish/build-packages.ts),
// what test/mock/homes/browser/core.test.ts checks has no node:* import, and what `npm run bench` weighs (gzip). msw stays
// outside (the app's own copy, an optional peer); Buffer, which the core's bodies are, comes from the `buffer`
// package, injected where the code uses it (browsers have no Buffer). Split into chunks: what only a rare request
// needs (the YAML text of /openapi.yaml) is a chunk of its own, loaded by a dynamic import when first asked for.
import path from "node:path";
import zlib from "node:zlib";
import { build, type BuildOptions, type BuildResult, type Metafile } from "esbuild";
import { ROOT } from "./paths.js";

export const BROWSER_ENTRY = "src/mock/homes/browser/browser.ts";

/** Where the chunks would go: nothing is written there unless `write: true` is passed with another outdir. */
const SCRATCH_OUT = path.join(ROOT, "node_modules/.cache/browser-bundle");

const COMMON: BuildOptions = {
  bundle: true,
  platform: "browser",
  format: "esm",
  target: "es2022",
  splitting: true,
  chunkNames: "chunk-[hash]",
  inject: [path.join(ROOT, "scripts/lib/buffer-global.ts")],
  logLevel: "error",
  metafile: true,
  write: false,
  absWorkingDir: ROOT,
  outdir: SCRATCH_OUT,
};

export async function browserBundle(extra: BuildOptions = {}): Promise<BuildResult & { outputFiles?: { path: string; contents: Uint8Array }[] }> {
  return build({ ...COMMON, entryPoints: { index: path.join(ROOT, BROWSER_ENTRY) }, external: ["msw"], ...extra });
}

/**
 * The page a team writes to turn the simulation on, as the issue weighs it: @avt/mock/browser with everything it
 * imports, MSW's parts included (`http` for the handlers, `setupWorker` from msw/browser), all bundled.
 */
export const SIMULATION_PAGE = `import { createSimulation } from "./${BROWSER_ENTRY}";
import { setupWorker } from "msw/browser";
const sim = createSimulation();
await setupWorker(...sim.handlers).start();
`;

export async function pageBundle(extra: BuildOptions = {}): Promise<BuildResult> {
  return build({ ...COMMON, stdin: { contents: SIMULATION_PAGE, resolveDir: ROOT, sourcefile: "page.ts", loader: "ts" }, minify: true, ...extra });
}

export interface Weight {
  /** Minified bytes of the files a page loads before its first request (the entry and the chunks it imports statically). */
  minified: number;
  /** The same files, each gzipped at level 9, summed (each is its own download). */
  gzipped: number;
  /** The chunks loaded only by a dynamic import (on demand): what they hold (packages by name, files by path), their gzip bytes. */
  onDemand: Array<{ inputs: string[]; gzipped: number }>;
}

/**
 * What a page loads first, from an esbuild result with its metafile: the entry point's output and, transitively,
 * every chunk it imports with a static `import`; a chunk reached only by `import()` is loaded on demand.
 */
export function firstLoad(r: BuildResult): Weight {
  const meta: Metafile = r.metafile!;
  const bytes = new Map((r.outputFiles ?? []).map((f) => [path.relative(ROOT, f.path), f.contents]));
  const first = firstOutputs(meta);
  const gz = (o: string) => zlib.gzipSync(bytes.get(o) ?? new Uint8Array(), { level: 9 }).length;
  const js = Object.keys(meta.outputs).filter((o) => o.endsWith(".js"));
  return {
    minified: [...first].reduce((n, o) => n + (bytes.get(o)?.length ?? 0), 0),
    gzipped: [...first].reduce((n, o) => n + gz(o), 0),
    onDemand: js.filter((o) => !first.has(o)).map((o) => ({ inputs: sources(Object.keys(meta.outputs[o]!.inputs)), gzipped: gz(o) })),
  };
}

/** The outputs a page loads first: the entry point's and, transitively, every chunk it imports with a static `import`. */
export function firstOutputs(meta: Metafile): Set<string> {
  const entry = Object.keys(meta.outputs).find((o) => meta.outputs[o]!.entryPoint !== undefined && o.endsWith(".js"));
  if (!entry) throw new Error("browser bundle: no entry point among the outputs");
  const first = new Set<string>();
  const visit = (o: string) => {
    if (first.has(o)) return;
    first.add(o);
    for (const i of meta.outputs[o]!.imports) if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(entry);
  return first;
}

/** Inputs as packages (`yaml`, `@scope/name`) or, for the repository's own files, their paths. */
export function sources(inputs: string[]): string[] {
  return [...new Set(inputs.map((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(i)?.[1] ?? i))];
}
