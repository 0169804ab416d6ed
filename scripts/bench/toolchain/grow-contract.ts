// Grows the contract synthetically for the toolchain scaling figures: copies spec/ to a folder and clones every
// credentialed path file (those under /v1, /aria, /ws) `factor - 1` times under a new prefix segment, with each
// operationId suffixed, so the copy has about `factor` times the operations and still lints clean.
//
//   /v1/analyses            listAnalyses      (paths/v1_analyses.yaml)
//   /v1/copy2/analyses      listAnalysesCopy2 (paths/v1_copy2_analyses.yaml)
//
// The prefix segment goes after the first one, so the rate-limit scope (/v1, /aria, /ws) and the category a path
// implies (/upload, /stream, /query, /reports) are unchanged. The public paths (/health, /healthz, /openapi.yaml,
// /swagger.html) are not cloned: lint allows `security: []` on exactly those URLs. Outgoing webhooks are not
// operations and are not cloned either.
//
// Usage: tsx scripts/bench/toolchain/grow-contract.ts <factor> <dest-dir>   (writes <dest-dir>/spec)
import fs from "node:fs";
import path from "node:path";
import { isMap, isScalar, parseDocument } from "yaml";
import { ROOT } from "../../lib/paths.js";

const SCOPE = /^\/(v1|aria|ws)(\/|$)/;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

export interface GrownContract {
  /** The root file to lint, bundle and generate from. */
  root: string;
  factor: number;
  operations: number;
  paths: number;
}

/** `/v1/analyses/{analysis_id}` with copy 3 → `/v1/copy3/analyses/{analysis_id}`. */
export function clonePath(url: string, copy: number): string {
  const [, first, ...rest] = url.split("/");
  return ["", first, `copy${copy}`, ...rest].join("/");
}

/**
 * Copies `specDir` to `destDir/spec` and grows it to `factor` × its credentialed operations.
 * factor 1 is a plain copy.
 */
export function growContract(factor: number, destDir: string, specDir = path.join(ROOT, "spec")): GrownContract {
  if (!Number.isInteger(factor) || factor < 1) throw new TypeError(`factor must be an integer >= 1, not ${factor}`);
  const out = path.join(destDir, "spec");
  fs.rmSync(out, { recursive: true, force: true });
  fs.cpSync(specDir, out, { recursive: true });
  const rootFile = path.join(out, "openapi.yaml");
  const root = parseDocument(fs.readFileSync(rootFile, "utf8"));
  const pathsNode = root.get("paths");
  if (!isMap(pathsNode)) throw new Error(`${rootFile}: paths is not a map`);

  const originals = pathsNode.items.map((pair) => {
    const url = String(isScalar(pair.key) ? pair.key.value : pair.key);
    const ref = (pair.value as { toJSON(): { $ref?: string } }).toJSON().$ref;
    if (!ref) throw new Error(`${rootFile}: paths.${url} is not a $ref to a path file`);
    return { url, ref };
  });

  let operations = 0;
  const countOps = (text: string) => text.split("\n").filter((l) => METHODS.some((m) => l === `${m}:`)).length;
  for (const { url, ref } of originals) {
    const text = fs.readFileSync(path.join(out, ref), "utf8");
    const ops = countOps(text);
    operations += ops;
    if (!SCOPE.test(url)) continue;
    for (let copy = 2; copy <= factor; copy++) {
      const newUrl = clonePath(url, copy);
      const file = `paths/${newUrl.slice(1).replaceAll("/", "_")}.yaml`;
      // operationId: listAnalyses → listAnalysesCopy2 (still camelCase verb + noun, unique).
      const cloned = text.replace(/^(\s*operationId:\s*)([A-Za-z0-9]+)\s*$/gm, `$1$2Copy${copy}`);
      if (cloned === text && ops > 0) throw new Error(`${ref}: no operationId found to rename`);
      fs.writeFileSync(path.join(out, file), cloned);
      pathsNode.set(newUrl, root.createNode({ $ref: file }));
      operations += ops;
    }
  }
  // A copy of an operation that takes no Idempotency-Key is exempt for the same reason (lint policy/idempotency).
  const exempt = root.getIn(["x-idempotency", "exempt"]);
  if (isMap(exempt)) {
    for (const pair of [...exempt.items]) {
      const name = String(isScalar(pair.key) ? pair.key.value : pair.key);
      for (let copy = 2; copy <= factor; copy++) exempt.set(`${name}Copy${copy}`, (pair.value as { toJSON(): unknown }).toJSON());
    }
  }
  fs.writeFileSync(rootFile, root.toString({ lineWidth: 0 }));
  return { root: rootFile, factor, operations, paths: pathsNode.items.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/bench/toolchain/grow-contract.ts")) {
  const [factorText, dest] = process.argv.slice(2);
  if (!factorText || !dest) {
    console.error("usage: tsx scripts/bench/toolchain/grow-contract.ts <factor> <dest-dir>");
    process.exit(2);
  }
  const g = growContract(Number(factorText), path.resolve(dest));
  console.log(`×${g.factor}: ${g.operations} operations, ${g.paths} paths → ${path.relative(process.cwd(), g.root)}`);
}
