// `npm run release`: writes the baseline and its release notes only when the gate passes with an honest version.
// Every release here goes to a scratch folder (--dir), never to generated/released/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { release, type ReleaseResult } from "../../../scripts/contract/release.js";
import type { Json } from "../../../scripts/lib/contract.js";
import { nextVersion } from "../../../scripts/lib/diff/diff.js";
import { bump, operation, pool, realBundle, schema, scratchDir, writeBundle } from "./fixtures.js";

/** The working tree's version, which the fixtures start from, and the minor release after it. */
const V1: string = (realBundle as Json).info.version;
const V2 = nextVersion(V1, "minor")!;
const esc = (v: string) => v.replace(/\./g, "\\.");

const DATE = "2026-11-21";
let dir: string;
const read = (d: string) => Promise.all([fs.readFile(path.join(d, "openapi.yaml"), "utf8"), fs.readFile(path.join(d, "CHANGELOG.md"), "utf8")]);
/** The bundle in a released file, without the header comment the release puts on it. */
const body = (released: string) => released.slice(released.indexOf("\n") + 1);

let v1: string;
let additiveHead: string;
let breakingHead: string;

beforeAll(async () => {
  dir = await scratchDir();
  v1 = await writeBundle(dir, "v1");
  additiveHead = await writeBundle(dir, "additive", (d) => {
    schema(d, "SpeakerCreate").properties.language = { type: "string", examples: ["en-US"] };
    bump(d, "minor");
  });
  breakingHead = await writeBundle(dir, "breaking", (d) => {
    delete operation(d, "/v1/speakers", "get").responses["200"].headers["X-RateLimit-Remaining"];
    bump(d, "minor");
  });
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("npm run release -- --initial", () => {
  it("takes the current bundle as the first release, with its notes", async () => {
    const out = path.join(dir, "initial");
    const r = await release({ initial: true, head: v1, dir: out, date: DATE });
    expect(r).toMatchObject({ released: true, version: V1 });
    const [baseline, changelog] = await read(out);
    expect(baseline.split("\n", 1)[0]).toBe(`# The released contract, version ${V1}: written by \`npm run release\` from generated/openapi.yaml. Do not edit.`);
    expect(body(baseline)).toBe(await fs.readFile(v1, "utf8"));
    expect(changelog).toMatch(/^# Contract changelog\n/);
    expect(changelog).toMatch(new RegExp(`\\n## ${esc(V1)} — 2026-11-21\\n\\nFirst release of the contract: \\d+ operations and \\d+ webhook events\\.\\n`));
    // Taking the same version again replaces its section; another version is refused.
    await release({ initial: true, head: v1, dir: out, date: "2026-11-22" });
    expect((await read(out))[1].match(new RegExp(`## ${esc(V1)} `, "g"))).toHaveLength(1);
    const refused = await release({ initial: true, head: additiveHead, dir: out, date: DATE });
    expect(refused).toMatchObject({ released: false, problems: [expect.stringMatching(new RegExp(`release ${esc(V1)} exists.*--initial only takes the first release`))] });
  });
});

describe("npm run release", () => {
  let dirs: { additive: string; breaking: string };
  let results: { additive: ReleaseResult; breaking: ReleaseResult };
  let before: [string, string];

  beforeAll(async () => {
    dirs = { additive: path.join(dir, "r-additive"), breaking: path.join(dir, "r-breaking") };
    for (const d of Object.values(dirs)) await release({ initial: true, head: v1, dir: d, date: DATE });
    before = await read(dirs.breaking);
    const [a, b] = await pool([
      () => release({ head: additiveHead, dir: dirs.additive, date: "2026-12-01" }),
      () => release({ head: breakingHead, dir: dirs.breaking, date: "2026-12-01" }),
    ]);
    results = { additive: a!, breaking: b! };
  }, 120_000);

  it("an additive change with a minor bump is released: new baseline, notes above the previous release", async () => {
    expect(results.additive).toMatchObject({ released: true, version: V2, problems: [] });
    const [baseline, changelog] = await read(dirs.additive);
    expect(body(baseline)).toBe(await fs.readFile(additiveHead, "utf8"));
    expect(changelog.indexOf(`## ${V2} — 2026-12-01`)).toBeGreaterThan(0);
    expect(changelog.indexOf(`## ${V2} — 2026-12-01`)).toBeLessThan(changelog.indexOf(`## ${V1} — 2026-11-21`));
    expect(changelog).toMatch(/### Changed\n\n- \*\*`createSpeaker` \(POST \/v1\/speakers\)\*\*: New optional field `language` in the request/);
  });

  it("a breaking change is refused and nothing is written", async () => {
    expect(results.breaking.released).toBe(false);
    expect(results.breaking.problems.join("\n")).toMatch(/breaking change.*new prefix/s);
    expect(results.breaking.report).toContain("response-header-removed");
    expect(await read(dirs.breaking)).toEqual(before);
  });
});
