// The gate over changes planted in scratch copies of spec/ (each copy generated as `npm run generate` would, then
// judged by `npm run check:breaking` against the copy it started from): deprecation with a sunset date. An
// operation deprecated with a past `x-sunset` may be removed; a parameter whose `x-sunset` is still ahead may not,
// and the refusal names the operation, the parameter, the rule and the date. Three changes that break nothing pass,
// each with a changelog line that says what changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { parse, stringify } from "yaml";
import type { Json } from "../../../scripts/lib/contract.js";
import { generate } from "../../../scripts/contract/generate.js";
import { SPEC_ROOT } from "../../../scripts/lib/paths.js";
import { pool, runScript, scratchDir } from "./fixtures.js";

const SPEC = path.dirname(SPEC_ROOT);
let dir: string;

/** A copy of `from` (a spec folder) under dir/name/spec with `edits` applied, each a file and what to do to its YAML. */
async function plant(name: string, from: string, edits: Record<string, ((doc: Json) => void) | null>): Promise<string> {
  const spec = path.join(dir, name, "spec");
  await fs.cp(from, spec, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const f = path.join(spec, file);
    if (edit === null) await fs.rm(f);
    else {
      const doc = parse(await fs.readFile(f, "utf8"));
      edit(doc);
      await fs.writeFile(f, stringify(doc, { lineWidth: 0 }));
    }
  }
  return spec;
}
const bundleOf = (spec: string) => path.join(path.dirname(spec), "out", "openapi.yaml");
const make = (spec: string) => generate({ root: path.join(spec, "openapi.yaml"), outDir: path.dirname(bundleOf(spec)), quiet: true });
const gate = (base: string, head: string) => runScript("check-breaking.ts", ["--base", bundleOf(base), "--head", bundleOf(head)]);
const param = (d: Json, name: string) => d.get.parameters.find((p: Json) => p.name === name);

let afterSunset: Awaited<ReturnType<typeof gate>>;
let additions: Awaited<ReturnType<typeof gate>>;
let notes: Awaited<ReturnType<typeof gate>>;
let beforeSunset: Awaited<ReturnType<typeof gate>>;

beforeAll(async () => {
  dir = await scratchDir();
  // The released contract: /healthz deprecated since long ago, listSpeakers' `name` filter until 2999.
  const base = await plant("base", SPEC, {
    "paths/healthz.yaml": (d) => Object.assign(d.get, { deprecated: true, "x-sunset": "2000-01-01" }),
    "paths/v1_speakers.yaml": (d) => Object.assign(param(d, "name"), { deprecated: true, "x-sunset": "2999-12-31" }),
  });
  const removedOp = await plant("removed-op", base, { "openapi.yaml": (d) => delete d.paths["/healthz"], "paths/healthz.yaml": null });
  const removedParam = await plant("removed-param", base, { "paths/v1_speakers.yaml": (d) => (d.get.parameters = d.get.parameters.filter((p: Json) => p.name !== "name")) });
  // Three changes that break nothing: a new optional request field, a new filter, a sentence added to a description.
  const additive = await plant("additive", base, {
    "components/schemas/SpeakerCreate.yaml": (d) => (d.properties.language = { type: "string", maxLength: 35, description: "BCP 47 language of the samples.", examples: ["en-US"] }),
    "paths/v1_speakers.yaml": (d) => {
      d.get.description += " Deleted speakers are never listed.";
      d.get.parameters.push({ name: "external_id", in: "query", required: false, "x-filter": { property: "external_id", match: "equals" }, description: "Only the speaker with this id in your system.", schema: { type: "string", maxLength: 200 } });
    },
  });
  await pool([base, removedOp, removedParam, additive].map((s) => () => make(s)), 2);
  [afterSunset, beforeSunset, additions, notes] = (await pool(
    [() => gate(base, removedOp), () => gate(base, removedParam), () => gate(base, additive), () => runScript("changelog.ts", ["--base", bundleOf(base), "--head", bundleOf(additive)])],
    2,
  )) as [typeof afterSunset, typeof afterSunset, typeof afterSunset, typeof afterSunset];
}, 600_000);

afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("three changes that break nothing, planted in a copy of spec/", () => {
  it("pass the gate", () => {
    expect(additions.code, additions.stdout + additions.stderr).toBe(0);
    expect(additions.stdout).toMatch(/^0 major, [1-9]\d* minor, \d+ patch/m);
  });

  it("each gets a changelog line that says what changed", () => {
    expect(notes.code, notes.stderr).toBe(0);
    expect(notes.stdout).toContain("- **`createSpeaker` (POST /v1/speakers)**: New optional field `language` in the request: BCP 47 language of the samples.\n");
    expect(notes.stdout).toMatch(/- \*\*`listSpeakers` \(GET \/v1\/speakers\)\*\*: .*New filter `external_id`: items whose `external_id` equals the value/i);
    expect(notes.stdout).toMatch(/- \*\*`listSpeakers` \(GET \/v1\/speakers\)\*\*: .*adds “Deleted speakers are never listed\.”/i);
    expect(notes.stdout.match(/`listSpeakers`/g)).toHaveLength(1);
  });
});

describe("deprecation with a sunset date, planted in copies of spec/", () => {
  it("an operation removed after its x-sunset passes, the removal listed as announced", () => {
    expect(afterSunset.code, afterSunset.stdout + afterSunset.stderr).toBe(0);
    expect(afterSunset.stdout).toMatch(/Path `\/healthz` was removed\./);
    expect(afterSunset.stdout).toMatch(/accepted in scripts\/breaking\/ignore\.yaml: removed after its sunset, 2000-01-01, as its `deprecated` and `x-sunset` announced/);
    expect(afterSunset.stdout).toMatch(/check:breaking passed/);
  });

  it("a parameter removed before its x-sunset is refused, naming the operation, the parameter, the rule and the date", () => {
    expect(beforeSunset.code, beforeSunset.stdout + beforeSunset.stderr).toBe(1);
    expect(beforeSunset.stdout).toMatch(/GET \/v1\/speakers query parameter name\n\s+parameter-removed, contract\/sunset: `name` query parameter was removed\. It is deprecated with `x-sunset: 2999-12-31`: removing it before that date is refused/);
    expect(beforeSunset.stdout).toMatch(/1 breaking change since release/);
    expect(beforeSunset.stdout).toMatch(/check:breaking FAILED/);
  });
});
