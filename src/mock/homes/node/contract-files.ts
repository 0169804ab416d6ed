// The contract as the gateway uses it: generated/openapi.json parsed once at start-up, the exact bytes of
// generated/openapi.yaml, the rate-limit policy, and a route table of every operation. Nothing here parses the
// contract per request.
// This file reads them from disk (the Node adapter); contract-build.ts is the core, with no file system.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildContract, ContractLoadError, type Contract, type Json } from "../../core/contract/contract-build.js";

export * from "../../core/contract/contract-build.js";

/**
 * The folder that holds generated/openapi.json above this module: the repository under tsx, the package's root in
 * its bundle (lib/mock/*.js). Found by looking up, so it holds at any depth the source or the bundle puts this file.
 */
export const REPO_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
export const DEFAULT_GENERATED_DIR = path.join(REPO_ROOT, "generated");

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "generated", "openapi.json"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, "../../../.."); // none: loadContract names the missing file
  }
}

/** Loads generated/openapi.json and generated/openapi.yaml from `dir`. */
export function loadContract(dir = DEFAULT_GENERATED_DIR): Contract {
  const jsonPath = path.join(dir, "openapi.json");
  const yamlPath = path.join(dir, "openapi.yaml");
  for (const file of [jsonPath, yamlPath]) {
    if (!fs.existsSync(file)) {
      throw new ContractLoadError(`${path.relative(process.cwd(), file) || file} does not exist. Run \`npm run generate\` first.`);
    }
  }
  let doc: Json;
  try {
    doc = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
  } catch (e) {
    throw new ContractLoadError(`${jsonPath}: ${(e as Error).message}. Run \`npm run generate\` again.`);
  }
  return buildContract(doc, { jsonPath, yamlPath, yamlBytes: fs.readFileSync(yamlPath) });
}

