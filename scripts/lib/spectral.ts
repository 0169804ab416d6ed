// Runs Spectral (the core library, not the CLI: the CLI adds a bundler and its own dependencies for nothing we
// need) with the committed ruleset `.spectral.mjs` over a bundled contract: OWASP API Security Top 10 and
// spectral:oas. Findings carry the bundle's line and the JSON pointer of the offending node.
import { Document, Ruleset, Spectral, type ISpectralDiagnostic } from "@stoplight/spectral-core";
import Parsers from "@stoplight/spectral-parsers";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GENERATED, ROOT } from "./paths.js";
import type { SourcePlace } from "./docs/source-map.js";

export const RULESET = path.join(ROOT, ".spectral.mjs");
export const BUNDLE_JSON = path.join(GENERATED, "openapi.json");

export interface Finding {
  severity: "error" | "warning" | "info" | "hint";
  rule: string;
  message: string;
  /** JSON pointer of the node in the bundle. */
  pointer: string;
  /** 1-based line in the bundle. */
  line: number;
}

const SEVERITIES = ["error", "warning", "info", "hint"] as const;
const pointerOf = (segments: Array<string | number>) => `#/${segments.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

let spectral: Promise<Spectral> | undefined;
async function load(): Promise<Spectral> {
  const definition = (await import(pathToFileURL(RULESET).href)).default;
  const s = new Spectral();
  // The source lets the ruleset's `overrides` (file#pointer) find the bundle relative to the ruleset.
  s.setRuleset(new Ruleset(definition, { source: RULESET }));
  return s;
}

/**
 * Lints bundle JSON text. `source` is the file the text stands for: the ruleset's overrides match it, so a test can
 * lint a modified copy of the bundle under the bundle's own name.
 */
export async function lintBundleText(text: string, source = BUNDLE_JSON): Promise<Finding[]> {
  spectral ??= load();
  const results: ISpectralDiagnostic[] = await (await spectral).run(new Document(text, Parsers.Json, source));
  return results
    .map((r) => ({ severity: SEVERITIES[r.severity] ?? "error", rule: String(r.code), message: r.message, pointer: pointerOf(r.path), line: r.range.start.line + 1 }))
    .sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule));
}

export async function lintBundle(file = BUNDLE_JSON): Promise<Finding[]> {
  return lintBundleText(await fs.readFile(file, "utf8"), file);
}

/**
 * One finding as a line: the source file under spec/ and its line first (the place to edit, `SourceMap`), then the
 * bundle's line and pointer. Without a source place, the bundle's line leads.
 */
export function formatFinding(f: Finding, file: string, source?: SourcePlace): string {
  if (!source) return `${file}:${f.line} ${f.severity} ${f.rule} ${f.message} (at ${f.pointer})`;
  return `${path.relative(ROOT, source.file)}:${source.line} ${f.severity} ${f.rule} ${f.message} (bundle ${file}:${f.line}, at ${f.pointer})`;
}
