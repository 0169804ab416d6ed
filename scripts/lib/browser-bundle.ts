// The simulation's browser bundle (src/mock/homes/browser/browser.ts): what @avt/mock/browser ships (scripts/publish/build-packages.ts),
// what test/mock/homes/browser/core.test.ts checks has no node:* import, and what `npm run bench` weighs (gzip). msw stays
// outside (the app's own copy, an optional peer); Buffer, which the core's bodies are, comes from the `buffer`
// package, injected where the code uses it (browsers have no Buffer).
import path from "node:path";
import { build, type BuildOptions, type BuildResult } from "esbuild";
import { ROOT } from "./paths.js";

export const BROWSER_ENTRY = "src/mock/homes/browser/browser.ts";

export async function browserBundle(extra: BuildOptions = {}): Promise<BuildResult & { outputFiles?: { contents: Uint8Array }[] }> {
  const options: BuildOptions = {
    entryPoints: [path.join(ROOT, BROWSER_ENTRY)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    target: "es2022",
    external: ["msw"],
    inject: [path.join(ROOT, "scripts/lib/buffer-global.ts")],
    logLevel: "error",
    metafile: true,
    ...extra,
  };
  return build(options);
}
