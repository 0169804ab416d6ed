// Client size: the client runtime (src/index.ts, everything the package exports) bundled by esbuild for the
// browser, minified, `ws` external (Node only; browsers use their own WebSocket), then gzipped (level 9); and
// openapi-fetch alone, bundled the same way. Both as an ES module, so nothing is added by a wrapper.
import { build } from "esbuild";
import zlib from "node:zlib";
import { ROOT } from "../lib/paths.js";

export interface BundleSize {
  minified: number;
  gzipped: number;
}

export interface ClientSize {
  ours: BundleSize;
  openapiFetch: BundleSize;
  ratio: number;
}

async function bundle(entry: { file: string } | { contents: string }): Promise<BundleSize> {
  const r = await build({
    ...("file" in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: "ts" } }),
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    external: ["ws"],
    write: false,
    logLevel: "silent",
  });
  const code = r.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: zlib.gzipSync(code, { level: 9 }).length };
}

export async function clientSize(): Promise<ClientSize> {
  const ours = await bundle({ file: "src/index.ts" });
  const openapiFetch = await bundle({ contents: `export * from "openapi-fetch"; export { default } from "openapi-fetch";` });
  return { ours, openapiFetch, ratio: ours.gzipped / openapiFetch.gzipped };
}
