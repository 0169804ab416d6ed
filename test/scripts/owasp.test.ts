// `npm run lint:owasp`: the OWASP API Security Top 10 ruleset and spectral:oas over the bundle (`.spectral.mjs`).
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BUNDLE_JSON, lintBundleText, RULESET } from "../../scripts/lib/spectral.js";
import { ROOT } from "../../scripts/lib/paths.js";

const run = promisify(execFile);
const bundleText = await fs.readFile(BUNDLE_JSON, "utf8");
const LIMITS = ["owasp:api4:2023-string-limit", "owasp:api4:2023-array-limit", "owasp:api4:2023-integer-limit"];

describe("npm run lint:owasp", () => {
  it("the bundle has no finding: 0 errors, 0 warnings", async () => {
    expect(await lintBundleText(bundleText)).toEqual([]);
  }, 60_000);

  it("catches an unbounded string, array and integer planted in a copy of the bundle, at their pointers", async () => {
    const planted = JSON.parse(bundleText);
    const s = planted.components.schemas;
    delete s.ApiKeyCreate.properties.name.maxLength;
    delete s.AnalysisCreate.properties.features.maxItems;
    delete s.ApiKeyCreate.properties.rate_limit_rpm.maximum;
    const findings = await lintBundleText(JSON.stringify(planted, null, 2));
    expect(findings.map((f) => `${f.severity} ${f.rule} ${f.pointer}`).sort()).toEqual([
      "error owasp:api4:2023-array-limit #/components/schemas/AnalysisCreate/properties/features",
      "error owasp:api4:2023-integer-limit #/components/schemas/ApiKeyCreate/properties/rate_limit_rpm",
      "error owasp:api4:2023-string-limit #/components/schemas/ApiKeyCreate/properties/name",
    ]);
    expect(findings.every((f) => f.line > 1)).toBe(true);
  }, 60_000);

  it("the command fails on such a copy and names the source file under spec/ and its line, then the bundle's (exit 1)", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "owasp-"));
    try {
      const planted = JSON.parse(bundleText);
      delete planted.components.schemas.WebhookCreate.properties.url.maxLength;
      const file = path.join(dir, "openapi.json");
      await fs.writeFile(file, JSON.stringify(planted, null, 2));
      const err = await run(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/contract/lint-owasp.ts", file], { cwd: ROOT }).then(
        () => null,
        (e: { code: number; stdout: string }) => e,
      );
      expect(err?.code).toBe(1);
      // The source file to edit leads (spec/components/schemas/WebhookCreate.yaml at the url property), then the bundle.
      const line = (await fs.readFile(path.join(ROOT, "spec/components/schemas/WebhookCreate.yaml"), "utf8")).split("\n").findIndex((l) => /^  url:/.test(l)) + 2;
      expect(err?.stdout).toMatch(new RegExp(`^spec/components/schemas/WebhookCreate\\.yaml:${line} error owasp:api4:2023-string-limit .*\\(bundle .*openapi\\.json:\\d+, at #/components/schemas/WebhookCreate/properties/url\\)`, "m"));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe(".spectral.mjs", () => {
  it("never turns off the limit rules, anywhere", async () => {
    const ruleset = (await import(RULESET)).default;
    for (const rule of LIMITS) expect(ruleset.rules[rule], rule).toBeUndefined();
    for (const o of ruleset.overrides) for (const rule of LIMITS) expect(o.rules[rule], `${o.files[0]} ${rule}`).toBeUndefined();
  });

  it("gives a reason on the line before every rule it turns off and every place it exempts", async () => {
    const lines = (await fs.readFile(RULESET, "utf8")).split("\n");
    const offs = lines.flatMap((l, i) => (/^\s+"[^"]+": "off",?$/.test(l) || /^\s+\{ files:|^\s+\{$/.test(l) ? [i] : []));
    expect(offs.length).toBeGreaterThanOrEqual(9);
    for (const i of offs) expect(lines[i - 1], `line ${i + 1}: ${lines[i]}`).toMatch(/^\s+\/\/ \S.{15,}/);
  });
});
