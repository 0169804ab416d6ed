// `npm run check:generated`: fails when generated/ (or the Python client's generated modules) is not what
// `npm run generate` makes of spec/ now. It generates into a scratch folder and compares bytes, so it never
// touches generated/ or python/ itself.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generate } from "./generate.js";
import { ROOT } from "../lib/paths.js";

const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "check-generated-"));
try {
  const r = await generate({ outDir: scratch });
  const stale: string[] = [];
  for (const t of r.targets) {
    const fresh = await fs.readFile(path.resolve(ROOT, t.written), "utf8");
    const committed = await fs.readFile(path.resolve(ROOT, t.committed), "utf8").catch(() => null);
    if (committed !== fresh) stale.push(t.committed);
  }
  if (stale.length) {
    console.error(`generated files are out of date with spec/: ${stale.join(", ")}. Run \`npm run generate\` and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log(`generated/ is up to date (${r.operations} operations, ${r.schemas} schemas).`);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
} finally {
  await fs.rm(scratch, { recursive: true, force: true });
}
