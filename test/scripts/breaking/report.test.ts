// Pure parts of the gate: the version rule, readable places for pointers, and the report formats.
import { describe, expect, it } from "vitest";
import { gateProblems, nextVersion, versionProblems, type Change, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { describePointer } from "../../../scripts/lib/diff/diff-pointer.js";
import { githubAnnotations, markdown, textReport } from "../../../scripts/lib/diff/diff-report.js";
import { realBundle } from "./fixtures.js";

describe("info.version must match the changes (--check-version)", () => {
  it.each([
    // base, head, impact, ok?
    ["1.0.0", "1.0.0", undefined, true],
    ["1.0.0", "1.0.1", "patch", true],
    ["1.0.0", "1.1.0", "patch", true], // more than needed is honest enough
    ["1.0.0", "1.0.0", "patch", false],
    ["1.0.0", "1.1.0", "minor", true],
    ["1.2.3", "1.3.0", "minor", true],
    ["1.0.0", "1.0.1", "minor", false],
    ["1.4.0", "1.3.9", undefined, false], // backwards
    ["1.0.0", "2.0.0", "minor", false], // the major is the prefix's generation
    ["1.0.0", "2.0.0", "major", false], // a break never ships in this prefix, at any version
    ["1.0.0", "v1.1", "minor", false],
  ] as const)("%s → %s with %s changes: %s", (base, head, impact, ok) => {
    expect(versionProblems(base, head, impact).length === 0).toBe(ok);
  });

  it("names the version to set", () => {
    expect(nextVersion("1.2.3", "minor")).toBe("1.3.0");
    expect(nextVersion("1.2.3", "patch")).toBe("1.2.4");
    expect(nextVersion("1.2.3", "major")).toBeUndefined();
    expect(versionProblems("1.2.3", "1.2.3", "minor")).toEqual([expect.stringContaining("set it to 1.3.0 or later")]);
    expect(versionProblems("1.0.0", "2.0.0", "minor")[0]).toContain("the major stays 1");
  });
});

describe("readable places", () => {
  it.each([
    ["#/paths/~1v1~1speakers/get", "GET /v1/speakers"],
    ["#/paths/~1v1~1speakers", "/v1/speakers"],
    ["#/paths/~1v1~1speakers/get/responses/200/content/application~1json/schema/properties/data/items/properties/name", "GET /v1/speakers response 200 `data[].name`"],
    ["#/paths/~1v1~1speakers/post/requestBody/content/application~1json/schema/required", "POST /v1/speakers request body `required`"],
    ["#/paths/~1v1~1speakers/get/responses/200/headers/X-RateLimit-Limit", "GET /v1/speakers response 200 header X-RateLimit-Limit"],
    ["#/paths/~1v1~1speakers/get/parameters/0", "GET /v1/speakers query parameter cursor"],
    ["#/webhooks/report.ready/post/requestBody/content/application~1json/schema/properties/data", "webhook report.ready (POST) request body `data`"],
    ["#/components/securitySchemes/BearerAuth", "security scheme BearerAuth"],
    ["#/security/1", "root security requirement 1"],
    ["#/x-rate-limit-policy/plans/pro/requests_per_minute", "x-rate-limit-policy `plans.pro.requests_per_minute`"],
  ])("%s → %s", (pointer, words) => {
    expect(describePointer(pointer, [realBundle])).toBe(words);
  });
});

const change = (impact: Change["impact"], where: string, message: string, rule = ""): Change => ({
  impact,
  rule,
  kind: "modified",
  pointer: "#/paths/~1v1~1x/get",
  where,
  message,
  location: { file: "generated/openapi.yaml", line: 12, col: 5, pointer: "#/components/schemas/X" },
});
const comparison = (changes: Change[], head = "1.0.0"): Comparison => {
  const bundle = (file: string, version: string) => ({ file, version, doc: {}, locate: (pointer: string) => ({ file, pointer }) });
  const impact = (["major", "minor", "patch"] as const).find((i) => changes.some((c) => c.impact === i));
  return { base: bundle("generated/released/openapi.yaml", "1.0.0"), head: bundle("generated/openapi.yaml", head), changes, impact, redocly: [] };
};

describe("reports", () => {
  const cmp = comparison([
    change("major", "GET /v1/x", "Operation gone, 100%: really.", "operation-removed"),
    change("minor", "GET /v1/y", "New field."),
    change("patch", "GET /v1/z", "`description` changed."),
  ]);

  it("the terminal report lists what broke, where and the line; patch changes only with --all", () => {
    const text = textReport(cmp, gateProblems(cmp));
    expect(text).toContain("✖ major  GET /v1/x\n      operation-removed: Operation gone, 100%: really.\n      at #/paths/~1v1~1x/get → #/components/schemas/X (generated/openapi.yaml:12:5)");
    expect(text).toContain("+ minor  GET /v1/y");
    expect(text).not.toContain("GET /v1/z");
    expect(text).toContain("1 major, 1 minor, 1 patch (1 patch change not listed; --all lists them)");
    expect(text.trimEnd().endsWith("check:breaking FAILED")).toBe(true);
    expect(textReport(cmp, [], { all: true })).toContain("· patch  GET /v1/z");
  });

  it("GitHub annotations: one ::error per breaking change on its line, escaped", () => {
    const lines = githubAnnotations(cmp, gateProblems(cmp)).split("\n");
    expect(lines[0]).toBe(
      "::error file=generated/openapi.yaml,line=12,col=5,title=Breaking change (operation-removed)::GET /v1/x: Operation gone, 100%25: really. [#/paths/~1v1~1x/get]",
    );
    expect(lines[1]).toMatch(/^::error title=check%3Abreaking::1 breaking change since release 1\.0\.0/);
    expect(lines).toHaveLength(2);
  });

  it("release notes: one entry per operation, grouped breaking, new, changed, deprecated; and say when nothing changed", () => {
    const md = markdown(cmp, { title: "1.1.0 — 2026-12-01" });
    expect(md).toBe(
      [
        "## 1.1.0 — 2026-12-01",
        "",
        "### Breaking changes",
        "",
        "- **GET /v1/x**: Operation gone, 100%: really (`operation-removed`).",
        "",
        "### Changed",
        "",
        "- **GET /v1/x**: New field; `description` changed.",
        "",
      ].join("\n"),
    );
    expect(markdown(comparison([]))).toBe("## Unreleased (since 1.0.0)\n\nNo changes to the contract.\n");
  });
});

describe("the words match the verdict (decision VG12)", () => {
  const warned = { ...change("major", "PATCH /v1/boards/{board_id}", "`default` changed from false to true.", "contract/default-changed"), severity: "warning" as const };

  it("a change rated warning is reported as a warning, the gate passes, and no line says no release can carry it", () => {
    const cmp = comparison([warned, change("minor", "GET /v1/y", "New field.")]);
    const text = textReport(cmp, gateProblems(cmp));
    expect(text).not.toMatch(/no release of \/v1 can carry/);
    expect(text).toContain("0 major, 1 warning, 1 minor, 0 patch");
    expect(text).toContain("the next release needs info.version 1.1.0 or later (minor)");
    expect(text.trimEnd().endsWith("check:breaking passed")).toBe(true);
    // --check-version judges the version a warning needs (a minor), not a break's "cannot be released".
    expect(gateProblems(cmp, { checkVersion: true })).toEqual([expect.stringContaining("set it to 1.1.0 or later")]);
    expect(gateProblems(comparison([warned], "1.1.0"), { checkVersion: true })).toEqual([]);
  });

  it("an error still says no release of /v1 can carry it, and fails", () => {
    const cmp = comparison([warned, change("major", "GET /v1/x", "Operation gone.", "operation-removed")]);
    const text = textReport(cmp, gateProblems(cmp));
    expect(text).toContain("1 major, 1 warning, 0 minor, 0 patch; no release of /v1 can carry these changes.");
    expect(text.trimEnd().endsWith("check:breaking FAILED")).toBe(true);
  });
});
