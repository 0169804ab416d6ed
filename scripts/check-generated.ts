// `npm run check:generated`: fails when generated/ is not what `npm run generate` makes of spec/ now.
// It generates into a scratch folder and compares bytes, so it never touches generated/ itself.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generate } from "./generate.js";
import { GENERATED } from "./lib/paths.js";

const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "check-generated-"));
try {
  const r = await generate({ outDir: scratch });
  const stale: string[] = [];
  for (const file of r.files.map((f) => path.basename(f))) {
    const fresh = await fs.readFile(path.join(scratch, file), "utf8");
    const committed = await fs.readFile(path.join(GENERATED, file), "utf8").catch(() => null);
    if (committed !== fresh) stale.push(`generated/${file}`);
  }
  if (stale.length) {
    console.error(`generated/ is out of date with spec/: ${stale.join(", ")}. Run \`npm run generate\` and commit the result.`);
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
