// `npm run build:packages`: writes the mock package to dist/packages/mock/ (and, with --pack, its tarball next to
// it), from the same sources `npm start` runs. The client package is the repository's own package.json (`npm pack`).
//
//   @avt/mock  (version: the contract's info.version, as the client's and the Python package's)
//     bin      avt-mock (npm start's CLI: every flag, --help; `avt-mock token` is npm run mock:token), avt-verify
//              (npm run verify's)
//     exports  "."      createSimulation, mockControls, createGateway, … (src/mock/index.ts)
//              "./msw"  simulationHandlers (msw: an optional peer)
//              "./factories"  createFactories: typed test data from the contract's schemas
//              "./browser"    createSimulation for a browser (MSW's setupWorker, Storybook): an ESM entry (with
//                             a chunk loaded on demand), the contract and every package but msw inside, no
//                             node:* import (browser-bundle.ts)
//     types    types/: tsc's declarations of the entry points' sources (tsconfig.mock-types.json) and the
//              contract's generated/schema.d.ts, so a TypeScript project type-checks createSimulation, its
//              controls, the handlers and the factories
//     files    lib/ (esbuild bundles: the pure-JavaScript packages the code imports are inside), generated/
//              (the contract the mock serves), bin/, docs/ (MOCK_DOCS: the guides the CLI's help and banner name)
//     dependencies     what is read from disk at run time, so cannot be bundled: swagger-ui-dist (the /swagger.html assets) as a
//                      bundled dependency holding only the files the page loads: the published one depends on
//                      @scarf/scarf, whose install script reports the install to a third party
//     optional peers   better-sqlite3 (--state only: a native module, loaded when the flag is given), pg (--state postgres://), ioredis
//                      (--redis only, loaded when the flag is given), msw,
//                      @stoplight/prism-http (Prefer: dynamic=true only)
// The one path the code computes from import.meta.url, the contract's folder (src/mock/homes/node/contract-files.ts),
// is found by looking up for generated/openapi.json, so it holds in the bundles (lib/mock/*.js) as in the sources.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { parse } from "yaml";
import { SWAGGER_ASSETS } from "../../src/mock/homes/node/swagger.js";
import { browserBundle } from "../lib/browser-bundle.js";
import { ROOT } from "../lib/paths.js";

export const MOCK_PACKAGE_DIR = path.join(ROOT, "dist/packages/mock");
export const MOCK_BIN = "avt-mock";
export const VERIFY_BIN = "avt-verify";

/** The package's module entry points, as a user imports them, and their sources (the guides' runner maps them). */
export const MOCK_EXPORTS: Record<string, string> = {
  "@avt/mock": "src/mock/index.ts",
  "@avt/mock/msw": "src/mock/homes/fetch/msw.ts",
  "@avt/mock/factories": "src/testing/factories.ts",
  "@avt/mock/browser": "src/mock/homes/browser/browser.ts",
};

/** Each export's declarations, under types/ (tsc keeps the sources' layout). */
const TYPES: Record<string, string> = {
  ".": "./types/src/mock/index.d.ts",
  "./msw": "./types/src/mock/homes/fetch/msw.d.ts",
  "./factories": "./types/src/testing/factories.d.ts",
  "./browser": "./types/src/mock/homes/browser/browser.d.ts",
};

/** Bundled entry points: the file under lib/ each is written to. */
const ENTRIES: Record<string, string> = {
  "src/mock/index.ts": "lib/mock/index.js",
  "src/mock/homes/fetch/msw.ts": "lib/mock/msw.js",
  "src/testing/factories.ts": "lib/mock/factories.js",
  "scripts/mock/bin-mock.ts": "lib/mock/bin-mock.js",
  "scripts/verify/bin-verify.ts": "lib/mock/bin-verify.js",
};
/** The docs the CLI's help and banner name (start.ts), shipped under docs/ so the paths they print hold once installed. */
export const MOCK_DOCS = ["frontend.md", "backend.md", "sandbox.md", "limits.md", "mock-keys.example.json"];
const PEERS = ["better-sqlite3", "ioredis", "pg", "msw", "@stoplight/prism-http"];
const RUNTIME = ["swagger-ui-dist"];
const SWAGGER_UI = "swagger-ui-dist";
/** ws's optional native speed-ups, required inside a try: left out. */
const ABSENT = ["bufferutil", "utf-8-validate"];

async function installedVersion(name: string): Promise<string> {
  return (JSON.parse(await fs.readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

export async function contractVersion(): Promise<string> {
  return (parse(await fs.readFile(path.join(ROOT, "spec/openapi.yaml"), "utf8")) as { info: { version: string } }).info.version;
}

async function manifest(): Promise<Record<string, unknown>> {
  const versions = async (names: string[]) => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await installedVersion(n)])));
  const root = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8")) as { license: string; engines: unknown };
  return {
    name: "@avt/mock",
    version: await contractVersion(),
    description: "The stateful mock of the audio, video and text analysis API: a CLI server, an in-process simulation (fetch, MSW handlers) and the verifier",
    type: "module",
    license: root.license,
    engines: root.engines,
    bin: { [MOCK_BIN]: "bin/avt-mock.js", [VERIFY_BIN]: "bin/avt-verify.js" },
    exports: {
      ".": { types: TYPES["."], default: "./lib/mock/index.js" },
      "./msw": { types: TYPES["./msw"], default: "./lib/mock/msw.js" },
      "./factories": { types: TYPES["./factories"], default: "./lib/mock/factories.js" },
      "./browser": { types: TYPES["./browser"], default: "./lib/browser/index.js" },
      "./package.json": "./package.json",
    },
    types: TYPES["."],
    files: ["lib/", "bin/", "generated/", "types/", "docs/"],
    dependencies: await versions(RUNTIME),
    bundleDependencies: [SWAGGER_UI],
    peerDependencies: Object.fromEntries(Object.entries(await versions(PEERS)).map(([n, v]) => [n, n === "msw" ? "^2.0.0" : v])),
    peerDependenciesMeta: Object.fromEntries(PEERS.map((n) => [n, { optional: true }])),
  };
}

const BIN = (entry: string) => `#!/usr/bin/env node\nimport "../lib/mock/${entry}.js";\n`;

export async function buildMockPackage(out = MOCK_PACKAGE_DIR): Promise<string> {
  await fs.rm(out, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([src, dest]) => [dest.replace(/\.js$/, ""), path.join(ROOT, src)])),
    outdir: out,
    bundle: true,
    splitting: true,
    chunkNames: "lib/mock/chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    external: [...PEERS, ...RUNTIME, ...ABSENT],
    logLevel: "error",
    // Bundled CommonJS packages call require(): give each file one.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  });
  await browserBundle({ outdir: path.join(out, "lib/browser"), write: true, minify: true, legalComments: "linked" });
  await declarations(out);
  await fs.mkdir(path.join(out, "bin"), { recursive: true });
  await fs.writeFile(path.join(out, "bin/avt-mock.js"), BIN("bin-mock"), { mode: 0o755 });
  await fs.writeFile(path.join(out, "bin/avt-verify.js"), BIN("bin-verify"), { mode: 0o755 });
  await fs.mkdir(path.join(out, "generated"));
  for (const f of ["openapi.json", "openapi.yaml"]) await fs.copyFile(path.join(ROOT, "generated", f), path.join(out, "generated", f));
  await fs.mkdir(path.join(out, "docs"));
  for (const f of MOCK_DOCS) await fs.copyFile(path.join(ROOT, "docs", f), path.join(out, "docs", f));
  await vendorSwaggerUi(out);
  await fs.writeFile(path.join(out, "package.json"), JSON.stringify(await manifest(), null, 2) + "\n");
  await fs.writeFile(
    path.join(out, "README.md"),
    `# @avt/mock\n\nThe stateful mock of the analysis API. \`npx ${MOCK_BIN} --port 4010\` (\`--help\` for every flag), \`npx ${MOCK_BIN} token\` (a bearer JWT it accepts), \`npx ${VERIFY_BIN} --target URL\`, and in-process \`createSimulation()\`: see [docs/frontend.md](docs/frontend.md), in this package.\n`,
  );
  return out;
}

/** tsc's declarations of the exports (TYPES), and the contract's types they import. */
async function declarations(out: string): Promise<void> {
  const tsc = path.join(ROOT, "node_modules/.bin/tsc");
  await promisify(execFile)(tsc, ["-p", path.join(ROOT, "tsconfig.mock-types.json"), "--outDir", path.join(out, "types")], { cwd: ROOT, maxBuffer: 1 << 24 });
  await fs.mkdir(path.join(out, "types/generated"), { recursive: true });
  await fs.copyFile(path.join(ROOT, "generated/schema.d.ts"), path.join(out, "types/generated/schema.d.ts"));
}

/** swagger-ui-dist's page assets and licence, with a manifest that depends on nothing (see the top). */
async function vendorSwaggerUi(out: string): Promise<void> {
  const from = path.join(ROOT, "node_modules", SWAGGER_UI);
  const to = path.join(out, "node_modules", SWAGGER_UI);
  await fs.mkdir(to, { recursive: true });
  const { name, version, license } = JSON.parse(await fs.readFile(path.join(from, "package.json"), "utf8")) as Record<string, string>;
  await fs.writeFile(path.join(to, "package.json"), JSON.stringify({ name, version, license }, null, 2) + "\n");
  for (const f of [...Object.keys(SWAGGER_ASSETS), "LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"]) await fs.copyFile(path.join(from, f), path.join(to, f)).catch(() => undefined);
}

/** Packs the built package; returns the tarball's path. */
export async function packMockPackage(dir = MOCK_PACKAGE_DIR, dest = path.dirname(dir)): Promise<string> {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--json", "--pack-destination", dest], { cwd: dir, maxBuffer: 1 << 24 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string }>;
  return path.join(dest, info!.filename);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/publish/build-packages.ts")) {
  const dir = await buildMockPackage();
  console.log(`built ${path.relative(ROOT, dir)}`);
  if (process.argv.includes("--pack")) console.log(`packed ${path.relative(ROOT, await packMockPackage(dir))}`);
}
