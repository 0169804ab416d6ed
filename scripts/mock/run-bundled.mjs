// `node scripts/mock/run-bundled.mjs <entry.ts> [args…]`: runs a TypeScript script as one esbuild bundle with plain
// node, instead of through tsx. What `npm start` runs: under tsx every module of the mock and of its packages
// (about 270) goes through tsx's loader thread, which cost more than everything else `npm start` does before its
// first answer (bench/README.md, cold start).
//
// The bundle lives in node_modules/.cache/avt-bundles/ and is rebuilt when any file it was made from (our sources,
// the packages bundled in, this file) changed size or time; otherwise nothing is built. Each source file keeps its
// own `import.meta.url`, so paths computed from it (the repository root, createRequire) are those of the sources.
// Plain JavaScript on purpose: it is what runs before any TypeScript can.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CACHE = path.join(ROOT, "node_modules/.cache/avt-bundles");

/** A stamp of the files a bundle was made from: their paths, sizes and modification times. */
function stamp(files) {
  const h = createHash("sha256");
  for (const f of files) {
    const st = fs.statSync(path.join(ROOT, f), { throwIfNoEntry: false });
    h.update(`${f}\0${st ? `${st.size}\0${st.mtimeMs}` : "missing"}\0`);
  }
  return h.digest("hex").slice(0, 16);
}

/** Bundles `entry` (a path relative to the root) unless the last bundle is still current; returns the bundle's path. */
async function bundled(entry) {
  // Named after the entry and this checkout (checkouts may share one node_modules).
  const name = `${entry.replace(/[^\w.-]+/g, "_")}.${createHash("sha256").update(ROOT).digest("hex").slice(0, 8)}`;
  const metaFile = path.join(CACHE, `${name}.json`);
  const meta = JSON.parse(fs.existsSync(metaFile) ? fs.readFileSync(metaFile, "utf8") : "null");
  if (meta && stamp(meta.inputs) === meta.stamp && fs.existsSync(path.join(CACHE, meta.file))) return path.join(CACHE, meta.file);

  const { build } = await import("esbuild");
  const keepMetaUrl = {
    name: "keep-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (a) => ({
        contents: fs.readFileSync(a.path, "utf8").replaceAll("import.meta.url", JSON.stringify(pathToFileURL(a.path).href)),
        loader: "ts",
      }));
    },
  };
  const tmp = path.join(CACHE, `${name}.${process.pid}.tmp.mjs`);
  const tmpMap = `${tmp}.map`;
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile: tmp,
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    // Native addons cannot be bundled: loaded from node_modules at run time (the state database, src/mock/engines/sqlite/state-db.ts).
    external: ["better-sqlite3"],
    format: "esm",
    target: "node20",
    // A linked map, not loaded by default (parsing it cost a tenth of the start-up): for stack traces that name the
    // sources, run with NODE_OPTIONS=--enable-source-maps.
    sourcemap: "linked",
    metafile: true,
    logLevel: "error",
    plugins: [keepMetaUrl],
    // Bundled CommonJS packages call require(): give the bundle one.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  });
  const inputs = [...Object.keys(result.metafile.inputs), path.relative(ROOT, fileURLToPath(import.meta.url))].sort();
  const s = stamp(inputs);
  const file = `${name}.${s}.mjs`;
  // The map's name is written into the bundle: keep it, and put the map where the bundle says.
  fs.writeFileSync(path.join(CACHE, file), fs.readFileSync(tmp, "utf8").replace(path.basename(tmpMap), `${file}.map`));
  fs.renameSync(tmpMap, path.join(CACHE, `${file}.map`));
  fs.rmSync(tmp);
  // The meta file last, by rename: a concurrent start reads either the old bundle's or the new one's.
  fs.writeFileSync(`${metaFile}.${process.pid}`, JSON.stringify({ stamp: s, file, inputs }));
  fs.renameSync(`${metaFile}.${process.pid}`, metaFile);
  for (const f of fs.readdirSync(CACHE)) {
    if (f.startsWith(`${name}.`) && !f.startsWith(file) && /\.mjs(\.map)?$/.test(f) && !f.includes(".tmp")) fs.rmSync(path.join(CACHE, f), { force: true });
  }
  return path.join(CACHE, file);
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node scripts/mock/run-bundled.mjs <entry.ts> [args…]");
  process.exit(2);
}
fs.mkdirSync(CACHE, { recursive: true });
let file;
try {
  file = await bundled(entry);
} catch (e) {
  console.error(`Cannot bundle ${entry}: ${e.message}`);
  process.exit(1);
}
// The script sees itself as the entry, as if run directly (`tsx scripts/mock/start.ts …`).
process.argv = [process.argv[0], path.join(ROOT, entry), ...args];
await import(pathToFileURL(file).href);
