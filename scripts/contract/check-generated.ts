// `npm run check:generated`: fails when generated/ (or the Python client's and the TypeScript client's generated
// modules) is not what `npm run generate` makes of spec/ now. By default it compares the hash of spec/ and the
// generator with the one `npm run generate` recorded in generated/inputs.json, and each output with its recorded
// hash (inputs-digest.ts): milliseconds. `--full` generates into a scratch folder and compares bytes instead; either
// way it never touches generated/ or python/ itself.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generate } from "./generate.js";
import { staleness } from "./inputs-digest.js";
import { GENERATED, ROOT, SPEC_ROOT } from "../lib/paths.js";

/** The committed outputs that differ from a fresh generation (the slow, byte-for-byte way). */
async function fullCheck(): Promise<string[]> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "check-generated-"));
  try {
    const r = await generate({ outDir: scratch, quiet: true });
    const stale: string[] = [];
    for (const t of r.targets) {
      const fresh = await fs.readFile(path.resolve(ROOT, t.written), "utf8");
      const committed = await fs.readFile(path.resolve(ROOT, t.committed), "utf8").catch(() => null);
      if (committed !== fresh) stale.push(`${t.committed} differs`);
    }
    return stale;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

try {
  const stale = process.argv.includes("--full") ? await fullCheck() : await staleness(SPEC_ROOT, GENERATED);
  if (stale.length) {
    console.error(`generated files are out of date with spec/: ${stale.join("; ")}. Run \`npm run generate\` and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log("generated/ is up to date with spec/.");
  }
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
}
