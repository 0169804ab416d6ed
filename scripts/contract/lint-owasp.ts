// `npm run lint:owasp`: Spectral over the bundle (generated/openapi.json) with `.spectral.mjs`, the OWASP API
// Security Top 10 ruleset plus spectral:oas. Fails on any finding, warnings included, naming the source file under
// spec/ and its line (the bundle pointer walked back through the unbundled files, lib/source-map.ts), then the
// bundle's line and pointer.
// Usage: npm run lint:owasp -- [bundle.json [spec/openapi.yaml]]
import path from "node:path";
import { BUNDLE_JSON, formatFinding, lintBundle } from "../lib/spectral.js";
import { ROOT, SPEC_ROOT } from "../lib/paths.js";
import { SourceMap } from "../lib/docs/source-map.js";

const file = path.resolve(process.argv[2] ?? BUNDLE_JSON);
try {
  const findings = await lintBundle(file);
  const shown = path.relative(ROOT, file) || file;
  const sources = new SourceMap(path.resolve(process.argv[3] ?? SPEC_ROOT));
  for (const f of findings) console.log(formatFinding(f, shown, sources.locate(f.pointer)));
  const count = (s: string) => findings.filter((f) => f.severity === s).length;
  console.log(`lint:owasp ${shown}: ${count("error")} errors, ${count("warning")} warnings (OWASP API Security Top 10 2023 + spectral:oas, .spectral.mjs)`);
  process.exitCode = findings.length ? 1 : 0;
} catch (e) {
  console.error(`lint:owasp could not run on ${file}: ${(e as Error).message}`);
  process.exitCode = 2;
}
