// What passes the gate and how info.version is held to the changes; the baseline it reads; the CLIs
// (`npm run check:breaking`, `npm run changelog`) end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import type { Json } from "../../../scripts/lib/contract.js";
import { BASELINE, compare, gateProblems, HEAD, nextVersion, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { ROOT } from "../../../scripts/lib/paths.js";
import { bump, operation, pool, realBundle, runScript, schema, scratchDir, writeBundle, type Mutation } from "./fixtures.js";

/** The working tree's version, which every fixture starts from (the expectations follow each release). */
const VERSION: string = (realBundle as Json).info.version;
const esc = (v: string) => v.replace(/\./g, "\\.");

/** A new optional request field, a new response field, and a new operation. */
const addOnly: Mutation = (d) => {
  schema(d, "SpeakerCreate").properties.language = { type: "string", description: "BCP 47 language of the samples.", examples: ["en-US"] };
  const speaker = schema(d, "Speaker");
  speaker.properties.language = { type: ["string", "null"], examples: ["en-US"] };
  speaker.required.push("language");
  const merge = structuredClone(operation(d, "/v1/speakers", "post"));
  merge.operationId = "mergeSpeakers";
  d.paths["/v1/speakers/merge"] = { post: merge };
};
/** A new component schema (used by the new operation's request) and a new root tag. */
const schemaAndTag: Mutation = (d) => {
  d.components.schemas.SpeakerMerge = { type: "object", properties: { speaker_ids: { type: "array", maxItems: 10, items: { type: "string", maxLength: 44 } } } };
  d.paths["/v1/speakers/merge"].post.requestBody = { content: { "application/json": { schema: { $ref: "#/components/schemas/SpeakerMerge" } } } };
  d.tags.push({ name: "Merges", description: "Merging speakers." });
};
const docsOnly: Mutation = (d) => void (operation(d, "/v1/speakers", "get").description = "Lists the workspace's speakers, newest first.");

let dir: string;
let additive: Comparison;
let docs: Comparison;
let unchanged: Awaited<ReturnType<typeof runScript>>;
let fromBaseline: Awaited<ReturnType<typeof runScript>>;
let changelog: Awaited<ReturnType<typeof runScript>>;
let notesFile: string;

beforeAll(async () => {
  dir = await scratchDir();
  notesFile = path.join(dir, "notes", "NOTES.md");
  const base = await writeBundle(dir, "base");
  // A released contract that still had an operation the working tree does not have.
  const released = await writeBundle(dir, "released", (d) => {
    d.paths["/v1/speakers/legacy-export"] = { get: { ...structuredClone(operation(d, "/v1/speakers", "get")), operationId: "exportSpeakersLegacy" } };
  });
  const [addHead, docsHead, mixedHead] = await Promise.all([
    writeBundle(dir, "additive", (d) => (addOnly(d), bump(d, "minor"))),
    writeBundle(dir, "docs", (d) => (docsOnly(d), bump(d, "patch"))),
    writeBundle(dir, "mixed", (d) => (addOnly(d), schemaAndTag(d), docsOnly(d), delete d.paths["/v1/speakers"].get)),
  ]);
  const results = await pool<unknown>([
    () => compare({ base, head: addHead }),
    () => compare({ base, head: docsHead }),
    () => runScript("check-breaking.ts", []),
    () => runScript("check-breaking.ts", ["--base", released]),
    () => runScript("changelog.ts", ["--base", base, "--head", mixedHead, "--out", notesFile]),
  ]);
  [additive, docs, unchanged, fromBaseline, changelog] = results as [Comparison, Comparison, typeof unchanged, typeof unchanged, typeof unchanged];
}, 420_000);

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("what passes", () => {
  it("purely additive changes (new optional field, new operation) pass as minor, with a minor bump", () => {
    expect(additive.impact).toBe("minor");
    expect(additive.changes.filter((c) => c.impact === "major")).toEqual([]);
    const wheres = additive.changes.filter((c) => c.impact === "minor").map((c) => `${c.where}: ${c.message}`);
    expect(wheres).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/v1\/speakers\/merge: New path: POST `mergeSpeakers`/),
        expect.stringMatching(/^POST \/v1\/speakers request body `language`: New field/),
      ]),
    );
    expect(gateProblems(additive)).toEqual([]);
    expect(gateProblems(additive, { checkVersion: true })).toEqual([]);
  });

  it("--check-version: additions without a minor bump fail", () => {
    const sameVersion = { ...additive, head: { ...additive.head, version: additive.base.version } };
    expect(gateProblems(sameVersion)).toEqual([]);
    expect(gateProblems(sameVersion, { checkVersion: true })).toEqual([expect.stringMatching(new RegExp(`additions need a minor bump: set it to ${esc(nextVersion(VERSION, "minor")!)}`))]);
    const patchOnly = { ...additive, head: { ...additive.head, version: nextVersion(VERSION, "patch")! } };
    expect(gateProblems(patchOnly, { checkVersion: true })).toHaveLength(1);
  });

  it("docs-only changes are a patch and need a patch bump", () => {
    expect(docs.impact).toBe("patch");
    expect(docs.changes.map((c) => `${c.where}: ${c.message}`)).toEqual([expect.stringMatching(/^GET \/v1\/speakers: `description` changed/)]);
    expect(gateProblems(docs, { checkVersion: true })).toEqual([]);
    const sameVersion = { ...docs, head: { ...docs.head, version: docs.base.version } };
    expect(gateProblems(sameVersion, { checkVersion: true })).toEqual([expect.stringMatching(new RegExp(`patch bump: set it to ${esc(nextVersion(VERSION, "patch")!)}`))]);
  });

  it("the release's own version bump is not listed as a change", () => {
    expect(additive.changes.some((c) => c.pointer === "#/info")).toBe(false);
  });
});

describe("the baseline", () => {
  it("the unchanged contract passes against the committed baseline (npm run check:breaking, no arguments)", () => {
    expect(unchanged.stderr).toBe("");
    expect(unchanged.code, unchanged.stdout).toBe(0);
    expect(unchanged.stdout).toMatch(/^generated\/released\/openapi\.yaml \(\d+\.\d+\.\d+\) → generated\/openapi\.yaml/);
    expect(unchanged.stdout).toMatch(/^\d+ major, \d+ minor, \d+ patch/m);
    // Every major change since the release is one scripts/breaking/ignore.yaml accepts as a security fix (B14).
    const majors = unchanged.stdout.split("\n✖ major").length - 1;
    expect(unchanged.stdout.match(/^(\d+) major/m)?.[1]).toBe(String(majors));
    expect(unchanged.stdout.split("\n✖ major").slice(1).every((block) => /\n\s+accepted in scripts\/breaking\/ignore\.yaml: /.test(block.split("\n+ ")[0]!))).toBe(true);
    expect(unchanged.stdout).toContain("check:breaking passed");
  });

  it("is the released snapshot, a file of its own, not the working tree's bundle", async () => {
    expect(path.relative(ROOT, BASELINE)).toBe("generated/released/openapi.yaml");
    expect(path.relative(ROOT, HEAD)).toBe("generated/openapi.yaml");
    const first = (await fs.readFile(BASELINE, "utf8")).split("\n", 1)[0];
    expect(first).toMatch(/^# The released contract, version \d+\.\d+\.\d+: written by `npm run release`/);
  });

  it("the gate judges the working tree by the baseline's content: an operation the baseline has and the working tree lacks fails", () => {
    // spec/ and generated/ are untouched and valid; only the baseline knows the operation, and that is enough.
    expect(fromBaseline.code, fromBaseline.stdout + fromBaseline.stderr).toBe(1);
    expect(fromBaseline.stdout).toMatch(new RegExp(`released\\.json \\(${esc(VERSION)}\\) → generated/openapi\\.yaml`));
    expect(fromBaseline.stdout).toMatch(/✖ major {2}\/v1\/speakers\/legacy-export\n\s+path-removed: Path `\/v1\/speakers\/legacy-export` was removed\./);
    expect(fromBaseline.stdout).toContain("check:breaking FAILED");
  });
});

describe("npm run changelog", () => {
  it("writes release notes, one entry per operation or resource, to stdout and to --out", async () => {
    expect(changelog.code, changelog.stderr).toBe(0);
    const notes = await fs.readFile(notesFile, "utf8");
    expect(changelog.stdout).toBe(notes);
    const headings = notes.split("\n").filter((l) => l.startsWith("#"));
    expect(headings).toEqual([`## Unreleased (since ${VERSION})`, "### Breaking changes", "### New", "### Changed"]);
    const section = (h: string) => notes.split(`### ${h}\n`)[1]!.split("###")[0]!;
    expect(section("Breaking changes")).toMatch(/- \*\*`listSpeakers` \(GET \/v1\/speakers\)\*\*: Operation `GET \/v1\/speakers` was removed \(`operation-removed`\)\./);
    // One entry per new operation and tag, in words (not "**tags `12`**: New tag."); the new operation's schema
    // (`SpeakerMerge`) is said by its entry, not by one of its own (VG15).
    expect(section("New").trim().split("\n").sort()).toEqual([
      expect.stringMatching(/^- \*\*The contract\*\*: New tag `Merges` in the root `tags:` list\.$/),
      expect.stringMatching(/^- \*\*`mergeSpeakers` \(POST \/v1\/speakers\/merge\)\*\*: New operation: .+\.$/),
    ]);
    expect(notes).not.toMatch(/\*\*tags `\d+`\*\*|New field\.\n.*SpeakerMerge|\*\*\/v1\/speakers\/merge\*\*/);
    // One entry for the operation: the request's new optional field and the response's new required one, in words.
    expect(section("Changed")).toBe("\n- **`createSpeaker` (POST /v1/speakers)**: New optional field `language` in the request: BCP 47 language of the samples; new required field `language` in the response.\n");
  });
});

// realBundle is the working tree's bundle; make sure the fixtures really start from it.
it("fixtures are copies of generated/openapi.json", () => {
  expect((realBundle as Json).info.version).toMatch(/^\d+\.\d+\.\d+$/);
});
