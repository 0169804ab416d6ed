// The release notes read like a person wrote them: one entry per operation or resource (its examples, links and
// parameters folded in), each change in words, grouped as breaking, new, changed and deprecated. Planted on copies of
// the real bundle and compared with the real `redocly diff`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import type { Json } from "../../../scripts/lib/contract.js";
import { compare } from "../../../scripts/lib/diff/diff.js";
import { markdown } from "../../../scripts/lib/diff/diff-report.js";
import { operation, pool, realBundle, schema, scratchDir, writeBundle, type Mutation } from "./fixtures.js";

/** The first list operation with a query filter, and a property of its item not yet filtered: found, not named. */
function filterable(d: Json): { path: string; id: string; property: string } {
  for (const [p, item] of Object.entries<Json>(d.paths)) {
    const op = item.get;
    if (!op?.operationId?.startsWith("list") || !op.parameters?.some((x: Json) => x["x-filter"])) continue;
    const item200 = op.responses["200"].content["application/json"].schema;
    const list = item200.$ref ? d.components.schemas[item200.$ref.split("/").pop()] : item200;
    const itemRef = list.properties.data.items.$ref?.split("/").pop();
    const props = Object.keys(d.components.schemas[itemRef]?.properties ?? {});
    const taken = new Set(op.parameters.map((x: Json) => x["x-filter"]?.property));
    const property = props.find((k) => !taken.has(k) && k !== "id" && !k.endsWith("_at"));
    if (property) return { path: p, id: op.operationId, property };
  }
  throw new Error("fixture needs a list with filters");
}

const newField: Mutation = (d) => void (schema(d, "SpeakerCreate").properties.language = { type: "string", maxLength: 35, description: "BCP 47 language of the samples." });
const newFilter: Mutation = (d) => {
  const f = filterable(d);
  operation(d, f.path, "get").parameters.push({ name: `${f.property}_is`, in: "query", required: false, "x-filter": { property: f.property, match: "equals" }, schema: { type: "string", maxLength: 50 } });
};
const newSentence: Mutation = (d) => void (operation(d, "/v1/speakers", "get").description += " Deleted speakers are never listed.");
const deprecate: Mutation = (d) => Object.assign(operation(d, "/v1/speakers/{speaker_id}", "get"), { deprecated: true, "x-sunset": "2030-01-01" });
/** A new operation with its example and link components: one entry, nothing about the example or the link. */
const newOperation: Mutation = (d) => {
  const create = structuredClone(operation(d, "/v1/speakers", "post"));
  create.operationId = "cloneSpeaker";
  create.summary = "Clone a speaker";
  d.components.examples.SpeakerClone = structuredClone(d.components.examples.Speaker ?? Object.values(d.components.examples)[0]);
  create.responses["201"].content["application/json"].examples = { default: { $ref: "#/components/examples/SpeakerClone" } };
  d.paths["/v1/speakers/{speaker_id}/clone"] = { post: create };
};

let dir: string;
let notes: string;
beforeAll(async () => {
  dir = await scratchDir();
  const [base, head] = await Promise.all([writeBundle(dir, "base"), writeBundle(dir, "head", (d) => [newField, newFilter, newSentence, deprecate, newOperation].forEach((m) => m(d)))]);
  const [cmp] = await pool([() => compare({ base, head })]);
  notes = markdown(cmp!, { title: "Notes" });
  if (process.env.SHOW_NOTES) console.log(notes);
}, 120_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const section = (h: string) => notes.split(`### ${h}\n`)[1]?.split("###")[0] ?? "";

describe("release notes in words", () => {
  it("are grouped as new, changed and deprecated (no breaking section without breaks)", () => {
    expect(notes.split("\n").filter((l) => l.startsWith("#"))).toEqual(["## Notes", "### New", "### Changed", "### Deprecated"]);
  });

  it("a new operation is one entry with its summary; its example is not listed", () => {
    expect(section("New")).toMatch(/^- \*\*`cloneSpeaker` \(POST \/v1\/speakers\/\{speaker_id\}\/clone\)\*\*: New operation: Clone a speaker\.$/m);
    expect(notes).not.toMatch(/SpeakerClone|example/i);
  });

  it("a new request field says it is optional, and what it is", () => {
    expect(section("Changed")).toMatch(/- \*\*`createSpeaker` \(POST \/v1\/speakers\)\*\*: New optional field `language` in the request: BCP 47 language of the samples\.$/m);
  });

  it("a new filter parameter says what it matches", () => {
    const f = filterable(realBundle);
    expect(section("Changed")).toContain(`New filter \`${f.property}_is\`: items whose \`${f.property}\` equals the value.\n`);
  });

  it("a description edit quotes the sentence it gained; one entry per operation", () => {
    expect(section("Changed")).toMatch(/- \*\*`listSpeakers` \(GET \/v1\/speakers\)\*\*: The description adds “Deleted speakers are never listed\.”$/m);
    expect(section("Changed").match(/`listSpeakers`/g)).toHaveLength(1);
  });

  it("a deprecation names its sunset", () => {
    expect(section("Deprecated")).toMatch(/- \*\*`getSpeaker` \(GET \/v1\/speakers\/\{speaker_id\}\)\*\*: Deprecated, to be removed from 2030-01-01\.$/m);
    expect(notes).not.toMatch(/x-sunset/);
  });
});
