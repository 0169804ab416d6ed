// The generated docs show each resource's rules (issue 20): `npm run generate` renders defaults, derived values,
// conditional rules, completion and reverse references into the schema descriptions (scripts/lib/docs/rules-table.ts).
import { describe, expect, it } from "vitest";
import { ruleLines } from "../../../scripts/lib/docs/rules-table.js";
import { contract } from "../../helpers/mock.js";

const description = (name: string): string => contract.doc.components.schemas[name].description;

describe("the rules block of the generated descriptions", () => {
  it("shows defaults, derived values and conditional rules of a request schema", () => {
    const d = description("AnalysisCreate");
    expect(d).toContain("**Rules**");
    expect(d).toContain("- `title`: when not sent, the last path segment of `media_url`.");
    expect(d).toContain("- `features` defaults to `[\"transcription\",\"diarization\"]`.");
    expect(d).toContain("(400) Then `features` defaults to `[\"transcription\"]`.");
  });

  it("shows what a finished resource carries, and what blocks an operation", () => {
    expect(description("Analysis")).toContain("- On entering `completed`: `summary` is filled (summary) when `features` contains `summary`.");
    expect(description("Report")).toContain("- On entering `ready`: `download_url` is filled (download-link).");
    expect(description("Agent")).toContain("- `deleteAgent`: 409 while a Run in `queued`, `running`, `awaiting_approval` names it in `agent_id`.");
  });

  it("renders nothing for a schema without rules", () => {
    expect(ruleLines({ type: "object", properties: { a: { type: "string" } } })).toEqual([]);
    expect(ruleLines({ type: "object", properties: { a: { type: "string", "x-derived": [{ from: "file", by: "file-name" }] } } })).toEqual(["- `a`: when not sent, the file name of `file`."]);
  });
});
