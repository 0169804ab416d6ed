// The release notes read as written by a person (issue 48): a new resource is one entry per operation with its
// schemas folded in (no "New schema CommentCreate" entry), sentences are quoted whole, and every removed thing is
// named. The changes are planted in a copy of the committed bundle and compared with it (redocly diff, no generate).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERATED } from "../../../../scripts/lib/paths.js";
import { compare } from "../../../../scripts/lib/diff/diff.js";
import { entries, noteLines } from "../../../../scripts/lib/diff/changelog-notes.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const LONG = "Each listed speaker carries the labels of every analysis it was matched in, and the list answers the same page on every 401 and 403 (other statuses may gain a body later, as the error catalogue grows with new codes over the coming releases).";
let dir: string;
let text: string;
let subjects: string[];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "changelog-notes-"));
  const base: Json = JSON.parse(await fs.readFile(path.join(GENERATED, "openapi.json"), "utf8"));
  const head: Json = structuredClone(base);
  const s = head.components.schemas;
  const ok = (ref: string) => ({ description: "OK.", content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } });
  s.Comment = { type: "object", description: "A comment.", properties: { id: { type: "string", maxLength: 40, description: "Id." }, body: { type: "string", maxLength: 2000, description: "Text." } } };
  s.CommentCreate = { type: "object", description: "A new comment.", additionalProperties: false, properties: { body: { type: "string", maxLength: 2000, description: "Text." } } };
  s.CommentList = { type: "object", description: "A page.", properties: { data: { type: "array", items: { $ref: "#/components/schemas/Comment" }, description: "Items." } } };
  head.paths["/v1/comments"] = {
    get: { operationId: "listComments", summary: "List comments", tags: base.paths["/v1/speakers"].get.tags, responses: { "200": ok("CommentList") } },
    post: { operationId: "createComment", summary: "Create a comment", tags: base.paths["/v1/speakers"].get.tags, requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/CommentCreate" } } } }, responses: { "201": ok("Comment") } },
  };
  delete s.SpeakerCreate.properties.external_id;
  delete s.Speaker.properties.metadata;
  s.Speaker.required = s.Speaker.required.filter((n: string) => n !== "metadata");
  delete head.paths["/v1/speakers"].get.responses["200"].headers["X-Request-Id"];
  s.AnalysisStreamEvent.oneOf.pop();
  head.paths["/v1/speakers/{speaker_id}"].get.responses["200"].headers["X-Trace-Hint"] = { description: "A hint.", schema: { type: "string", maxLength: 40 } };
  s.SpeakerCreate.required = (s.SpeakerCreate.required ?? []).filter((n: string) => n !== "external_id");
  head.paths["/v1/speakers"].get.description = `${head.paths["/v1/speakers"].get.description ?? ""} ${LONG}`.trim();
  const [b, h] = [path.join(dir, "base.json"), path.join(dir, "head.json")];
  await fs.writeFile(b, JSON.stringify(base));
  await fs.writeFile(h, JSON.stringify(head));
  const cmp = await compare({ base: b, head: h });
  subjects = entries(cmp).map((e) => e.subject);
  text = noteLines(cmp).join("\n");
  if (process.env.SHOW_NOTES) console.log(text);
}, 120_000);

afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("the changelog of planted changes", () => {
  it("a new resource: one entry per new operation, its schemas folded in, no 'New schema' entry", () => {
    expect(subjects).toContain("`listComments` (GET /v1/comments)");
    expect(subjects).toContain("`createComment` (POST /v1/comments)");
    for (const name of ["Comment", "CommentCreate", "CommentList"]) expect(subjects).not.toContain(`\`${name}\``);
    expect(text).not.toMatch(/new schema/i);
  });

  it("a sentence is quoted whole, never cut", () => {
    expect(text).toContain(`“${LONG}”`);
    expect(text).not.toMatch(/…”/);
  });

  it("every added or removed thing is named", () => {
    expect(text).toMatch(/property `external_id` of `SpeakerCreate` was removed/i);
    expect(text).toMatch(/new header `X-Trace-Hint`/i);
    expect(text).toMatch(/removed `oneOf` variant `AnalysisStream\w+`/i);
    expect(text).not.toMatch(/(New|Removed) [a-z ]+[.;]/);
  });
});
