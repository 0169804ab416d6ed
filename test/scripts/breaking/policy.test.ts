// The gate's policy: a severity per check from scripts/breaking/checks.yaml, accepted breaks (each with its
// reason) from scripts/breaking/ignore.yaml, and the markdown and JUnit reports. Pure functions over changes found
// by the gate's own rules on a planted copy of the real bundle (no redocly run).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import type { Json } from "../../../scripts/lib/contract.js";
import { clientFeltChanges } from "../../../scripts/lib/diff/diff-extensions.js";
import { gateProblems, highest, type Bundle, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { judge, loadPolicy, PolicyError } from "../../../scripts/lib/diff/diff-policy.js";
import { junit, prComment } from "../../../scripts/lib/diff/diff-report.js";
import { realBundle, schema, scratchDir } from "./fixtures.js";

const bundle = (doc: Json): Bundle => ({ file: "mem.json", version: doc.info.version, doc, locate: (pointer) => ({ file: "mem.json", pointer }) });
const head = structuredClone(realBundle);
const codes: string[] = schema(head, "Error").properties.error["x-extensible-enum"];
codes.splice(0, 1); // one error code removed: a break
const found = clientFeltChanges(bundle(realBundle), bundle(head));
const comparison = (changes: typeof found, version = head.info.version): Comparison => ({
  base: bundle(realBundle),
  head: { ...bundle(head), version },
  changes,
  impact: highest(changes),
  redocly: [],
});
const nextMajor = `${Number(realBundle.info.version.split(".")[0]) + 1}.0.0`;

let dir: string;
beforeAll(async () => void (dir = await scratchDir()));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));
const write = async (name: string, text: string) => {
  const f = path.join(dir, name);
  await fs.writeFile(f, text);
  return f;
};

describe("severity per check and accepted breaks", () => {
  it("the committed config makes the break an error, and the gate fails on it", async () => {
    const judged = judge(found, await loadPolicy());
    expect(judged.map((c) => `${c.severity} ${c.rule}`)).toEqual(["error contract/extensible-enum"]);
    expect(gateProblems(comparison(judged))).toEqual([expect.stringMatching(/^1 breaking change since release/)]);
  });

  it("the same check's addition (a code gained by an extensible enum) is not a break: its impact's severity, and the gate passes", async () => {
    const added = structuredClone(realBundle);
    schema(added, "Error").properties.error["x-extensible-enum"].push("brand_new_code");
    const changes = judge(clientFeltChanges(bundle(realBundle), bundle(added)), await loadPolicy());
    expect(changes.map((c) => `${c.impact} ${c.severity} ${c.rule}`)).toEqual(["minor info contract/extensible-enum"]);
    expect(gateProblems({ ...comparison(changes), head: bundle(added) })).toEqual([]);
  });

  it("x-completion filler by filler: a condition that gains alternatives is minor; one that narrows, or a lost filler, is major", () => {
    const fillers = (doc: Json) => schema(doc, "Analysis")["x-completion"].completed as Array<{ operation?: string; when?: Json }>;
    const speakers = (doc: Json) => fillers(doc).find((x) => x.operation === "listAnalysisSpeakers")!;
    const narrowed = structuredClone(realBundle);
    speakers(narrowed).when = { properties: { features: { contains: { const: "diarization" } } } };
    const widened = structuredClone(narrowed);
    speakers(widened).when = { properties: { features: { contains: { enum: ["diarization", "speaker_identification"] } } } };
    const impacts = (a: Json, b: Json) => clientFeltChanges(bundle(a), bundle(b)).filter((c) => c.rule === "contract/completion").map((c) => c.impact);
    expect(impacts(narrowed, widened)).toEqual(["minor"]);
    expect(impacts(widened, narrowed)).toEqual(["major"]);
    const lost = structuredClone(widened);
    schema(lost, "Analysis")["x-completion"].completed = fillers(lost).filter((x) => x.operation !== "listAnalysisSpeakers");
    expect(impacts(widened, lost)).toEqual(["major"]);
  });

  it("a check rated warning is listed but passes", async () => {
    const checks = await write("warn.yaml", "checks:\n  contract/extensible-enum: warning\n");
    const judged = judge(found, await loadPolicy(checks, await write("none.yaml", "accepted: []\n")));
    expect(judged[0]!.severity).toBe("warning");
    expect(gateProblems(comparison(judged))).toEqual([]);
  });

  it("an accepted break passes with its reason; one without a reason is refused", async () => {
    const pointer = found[0]!.pointer;
    const ok = await write("ok.yaml", `accepted:\n  - rule: contract/extensible-enum\n    pointer: '${pointer}'\n    reason: The code was never sent.\n`);
    const judged = judge(found, await loadPolicy(undefined, ok));
    expect(judged[0]!.accepted).toBe("The code was never sent.");
    expect(gateProblems(comparison(judged, nextMajor))).toEqual([]);
    const bad = await write("bad.yaml", `accepted:\n  - rule: contract/extensible-enum\n    pointer: '${pointer}'\n`);
    await expect(loadPolicy(undefined, bad)).rejects.toThrow(PolicyError);
    await expect(loadPolicy(undefined, bad)).rejects.toThrow(/bad\.yaml: accepted\[0\] \(contract\/extensible-enum at .*\) has no reason/);
  });

  it("an accepted break ships only with a major version: without one the gate refuses, naming info.version, the rule and the place", async () => {
    const pointer = found[0]!.pointer;
    const ok = await write("ok2.yaml", `accepted:\n  - rule: contract/extensible-enum\n    pointer: '${pointer}'\n    reason: The code was never sent.\n`);
    const judged = judge(found, await loadPolicy(undefined, ok));
    const v = realBundle.info.version;
    expect(gateProblems(comparison(judged, v))).toEqual([
      `info.version is ${v}, but a breaking change ships (\`contract/extensible-enum\` at \`Error\` field \`error\`, accepted in scripts/breaking/ignore.yaml): a breaking change needs a major version: set info.version to ${nextMajor} (spec/openapi.yaml, info.version), under its new prefix.`,
    ]);
    const minor = v.replace(/^(\d+)\.(\d+)\..*$/, (_: string, a: string, b: string) => `${a}.${Number(b) + 1}.0`);
    expect(gateProblems(comparison(judged, minor))).toHaveLength(1);
    expect(gateProblems(comparison(judged, nextMajor))).toEqual([]);
  });

  it("an unknown severity is refused with where it is", async () => {
    const checks = await write("typo.yaml", "checks:\n  contract/lifecycle: fatal\n");
    await expect(loadPolicy(checks)).rejects.toThrow(/typo\.yaml: checks\.contract\/lifecycle is "fatal"; use one of error, warning, info/);
  });
});

describe("reports", () => {
  it("JUnit: one failing test case per error, naming rule and place; the gate's summary of them is no second failure (issue 48)", async () => {
    const judged = judge(found, await loadPolicy());
    const xml = junit(comparison(judged), gateProblems(comparison(judged)));
    expect(xml).toMatch(/<testsuite name="check-breaking" tests="1" failures="1">/);
    expect(xml).toMatch(/<testcase classname="check-breaking.major" name="contract\/extensible-enum `Error` field `error`"><failure message="`x-extensible-enum` lost/);
  });

  it("markdown for a pull request: the verdict, then the changes by impact", async () => {
    const judged = judge(found, await loadPolicy());
    const md = prComment(comparison(judged), gateProblems(comparison(judged)));
    expect(md).toMatch(/^\*\*check:breaking failed\*\*\n\n- 1 breaking change/);
    expect(md).toMatch(/### Breaking changes\n\n- \*\*`Error`\*\*: `x-extensible-enum` lost/);
  });
});
