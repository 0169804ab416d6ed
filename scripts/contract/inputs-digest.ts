// What `npm run generate` made its outputs from, recorded beside them (`generated/inputs.json`), so a gate can tell
// a stale generated/ in milliseconds instead of generating everything again (issue 48):
//   - `inputs`: one SHA-256 over every file of the spec's folder (path relative to it, then bytes, sorted by path),
//     the repository's own source files the generator is built from (found by esbuild from generate.ts, packages
//     left out, and recorded as `generator` so a check reads the list instead of running esbuild again), the version
//     of each package it imports, and redocly.yaml (the lint and bundle configuration);
//   - `outputs`: the SHA-256 of each file written, by its path relative to the record.
// Fresh means: the inputs hash to the recorded value now, and every output still has its recorded hash (no hand edit).
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../lib/paths.js";

export const RECORD = "inputs.json";
const GENERATOR = path.join(ROOT, "scripts/contract/generate.ts");
const CONFIG = path.join(ROOT, "redocly.yaml");

export interface InputsRecord {
  note: string;
  inputs: string;
  outputs: Record<string, string>;
  /**
   * The generator's own source files (repository-relative) and the packages it imports, as esbuild found them when
   * generating. A check hashes these again instead of asking esbuild (decision VG17): the import graph can only
   * change by editing a file of this list (an import is a line in one of them), which changes the hash anyway.
   */
  generator?: Generator;
}

export interface Generator {
  files: string[];
  packages: string[];
}

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** The generator's own source files (repository-relative) and the names of the packages it imports. */
export async function generatorSources(): Promise<Generator> {
  const { build } = await import("esbuild");
  const r = await build({ entryPoints: [GENERATOR], bundle: true, write: false, metafile: true, platform: "node", format: "esm", packages: "external", logLevel: "silent" });
  const files = Object.keys(r.metafile.inputs).map((f) => path.relative(ROOT, path.resolve(ROOT, f)).split(path.sep).join("/"));
  const names = new Set<string>();
  for (const out of Object.values(r.metafile.outputs)) {
    for (const imp of out.imports) if (imp.external && !imp.path.startsWith("node:")) names.add(imp.path.startsWith("@") ? imp.path.split("/").slice(0, 2).join("/") : imp.path.split("/")[0]!);
  }
  return { files: files.sort(), packages: [...names].sort() };
}

/** `name@version` of each package, as installed now. */
const versions = (names: string[]) =>
  Promise.all(
    names.map(async (n) => {
      const manifest = await fs.readFile(path.join(ROOT, "node_modules", n, "package.json"), "utf8").catch(() => "{}");
      return `${n}@${(JSON.parse(manifest) as { version?: string }).version ?? "?"}`;
    }),
  );

/** The hash of everything generation reads, for the contract whose root is `root`. */
export async function inputsDigest(root: string, generator?: Generator): Promise<string> {
  const specDir = path.dirname(path.resolve(root));
  const gen = generator ?? (await generatorSources());
  const parts: Array<[string, string]> = [];
  for (const f of await filesUnder(specDir)) parts.push([`spec:${path.relative(specDir, f).split(path.sep).join("/")}`, f]);
  for (const f of [...gen.files.map((x) => path.resolve(ROOT, x)), CONFIG]) parts.push([`repo:${path.relative(ROOT, f).split(path.sep).join("/")}`, f]);
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A listed file that is gone hashes as missing: the generator changed.
  const hashes = await Promise.all(parts.map(([, file]) => fs.readFile(file).then(sha, () => "missing")));
  const h = createHash("sha256");
  parts.forEach(([name], i) => h.update(`${name}\0${hashes[i]}\n`));
  h.update(`packages\0${(await versions(gen.packages)).join(",")}\n`);
  return h.digest("hex");
}

/** Writes the record beside the bundle: the inputs' hash and each written file's. */
export async function writeRecord(outDir: string, inputs: string, written: string[], generator: Generator): Promise<string> {
  const outputs: Record<string, string> = {};
  for (const f of written) outputs[path.relative(outDir, f).split(path.sep).join("/")] = sha(await fs.readFile(f));
  const record: InputsRecord = { note: "Written by `npm run generate`; read by check:generated and check:breaking to tell a stale generated/ without generating.", inputs, outputs, generator };
  const file = path.join(outDir, RECORD);
  await fs.writeFile(file, JSON.stringify(record, null, 2) + "\n");
  return file;
}

/**
 * Why the outputs recorded in `outDir` are not what generation makes of `root` now, one reason a line; empty when
 * fresh. `only`: check just these outputs (by path relative to the record), e.g. the bundle a gate judges.
 */
export async function staleness(root: string, outDir: string, only?: string[]): Promise<string[]> {
  const file = path.join(outDir, RECORD);
  const text = await fs.readFile(file, "utf8").catch(() => null);
  if (text === null) return [`${path.relative(ROOT, file)} is missing (written by \`npm run generate\`)`];
  const record = JSON.parse(text) as InputsRecord;
  const why: string[] = [];
  if (record.inputs !== (await inputsDigest(root, record.generator))) why.push(`${path.relative(ROOT, path.dirname(path.resolve(root)))}/ (or the generator) changed since \`npm run generate\` last ran`);
  for (const [name, hash] of Object.entries(record.outputs)) {
    if (only && !only.includes(name)) continue;
    const now = await fs.readFile(path.resolve(outDir, name)).catch(() => null);
    if (now === null || sha(now) !== hash) why.push(`${path.relative(ROOT, path.resolve(outDir, name))} is not the file \`npm run generate\` wrote`);
  }
  return why;
}
