// scripts/breaking/ignore.yaml entries (issue 48): an entry accepts a change by either pointer the gate prints
// (`at A → B`: the logical one through an operation, and where the node lives), or by rule and operation; an entry
// that accepted nothing is reported, and fails the gate with --strict.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateProblems, type Bundle, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { judge, loadPolicy, unusedEntries } from "../../../scripts/lib/diff/diff-policy.js";
import type { Change } from "../../../scripts/lib/diff/diff-types.js";
import { textReport } from "../../../scripts/lib/diff/diff-report.js";
import { scratchDir } from "./fixtures.js";

const A = "#/paths/~1v1~1speakers/get/responses/200/content/application~1json/schema/properties/data/items";
const B = "#/components/schemas/Speaker";
const change: Change = {
  impact: "major",
  rule: "response-property-became-optional",
  kind: "modified",
  pointer: A,
  property: "required",
  where: "`Speaker`",
  message: "`external_id` is no longer required.",
  location: { file: "generated/openapi.yaml", line: 10, col: 3, pointer: B },
  operations: ["getSpeaker (GET /v1/speakers/{speaker_id})", "listSpeakers (GET /v1/speakers)"],
};
const bundle: Bundle = { file: "mem.json", version: "1.3.0", doc: {}, locate: (pointer) => ({ file: "mem.json", pointer }) };

let dir = "";
beforeAll(async () => void (dir = await scratchDir()));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));
const policyWith = async (name: string, entry: string) => {
  const f = path.join(dir, name);
  await fs.writeFile(f, `accepted:\n  - rule: response-property-became-optional\n${entry}    reason: No client reads it.\n`);
  return loadPolicy(undefined, f);
};
const comparison = (changes: Change[], unusedAccepted: Comparison["unusedAccepted"] = []): Comparison => ({ base: bundle, head: { ...bundle, version: "2.0.0" }, changes, impact: "major", redocly: [], unusedAccepted });

describe("ignore entries", () => {
  for (const [name, entry] of [
    ["the logical pointer (A)", `    pointer: '${A}'\n`],
    ["the component's pointer (B, after the arrow)", `    pointer: '${B}'\n`],
    ["an operationId the change reaches", "    operation: getSpeaker\n"],
    ["an operation's label", "    operation: 'listSpeakers (GET /v1/speakers)'\n"],
  ] as const) {
    it(`accepts a change by ${name}`, async () => {
      const policy = await policyWith(`${name.length}-${entry.length}.yaml`, entry);
      const [judged] = judge([change], policy);
      expect(judged!.accepted).toBe("No client reads it.");
      expect(unusedEntries([judged!], policy)).toEqual([]);
    });
  }

  it("an entry that matched nothing is reported on the terminal, and fails the gate only with --strict", async () => {
    const policy = await policyWith("unused.yaml", "    operation: deleteAgent\n");
    const judged = judge([change], policy);
    expect(judged[0]!.accepted).toBeUndefined();
    const unused = unusedEntries(judged, policy);
    expect(unused).toHaveLength(1);
    const c = comparison([{ ...judged[0]!, severity: "info" }], unused);
    expect(gateProblems(c)).toEqual([]);
    expect(textReport(c, [])).toMatch(/! scripts\/breaking\/ignore\.yaml: the entry `response-property-became-optional` at operation deleteAgent matched no change/);
    expect(gateProblems(c, { strict: true })).toEqual([expect.stringMatching(/at operation deleteAgent matched no change.*\(--strict\)$/)]);
  });

  it("an entry names a rule and a pointer or an operation", async () => {
    await expect(policyWith("neither.yaml", "")).rejects.toThrow(/accepted\[0\] needs a rule and a pointer \(either one the gate prints\) or an operation/);
  });
});
