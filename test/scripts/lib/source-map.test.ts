// A bundle pointer (what Spectral reports on generated/openapi.json) walked back to the source file under spec/
// and its line: through the root's path `$ref`s, and to a component's own file.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../../scripts/lib/paths.js";
import { pointerSegments, SourceMap } from "../../../scripts/lib/docs/source-map.js";

const map = new SourceMap();
/** The 1-based line of the first line of `file` matching `re`. */
const lineOf = (file: string, re: RegExp) => fs.readFileSync(path.join(ROOT, file), "utf8").split("\n").findIndex((l) => re.test(l)) + 1;
const rel = (p: { file: string; line: number } | undefined) => p && { file: path.relative(ROOT, p.file), line: p.line };

describe("SourceMap: bundle pointer → spec file and line", () => {
  it("decodes RFC 6901 pointers as Spectral writes them", () => {
    expect(pointerSegments("#/paths/~1v1~1speakers~1%7Bspeaker_id%7D/get")).toEqual(["paths", "/v1/speakers/{speaker_id}", "get"]);
  });

  it("follows the root's $ref into the path file", () => {
    expect(rel(map.locate("#/paths/~1v1~1speakers/get/operationId"))).toEqual({ file: "spec/paths/v1_speakers.yaml", line: lineOf("spec/paths/v1_speakers.yaml", /operationId: listSpeakers/) });
  });

  it("finds a bundled component in the file named after it, and a $ref'd response's header there", () => {
    expect(rel(map.locate("#/components/schemas/WebhookCreate/properties/url"))).toEqual({ file: "spec/components/schemas/WebhookCreate.yaml", line: lineOf("spec/components/schemas/WebhookCreate.yaml", /^  url:/) + 1 });
    expect(rel(map.locate("#/paths/~1v1~1speakers/get/responses/404"))?.file).toBe("spec/paths/v1_speakers.yaml");
    expect(rel(map.locate("#/paths/~1v1~1speakers~1{speaker_id}/get/responses/404/headers"))?.file).toBe("spec/components/responses/NotFound.yaml");
  });

  it("stops at the deepest node the source has", () => {
    expect(rel(map.locate("#/paths/~1v1~1speakers/get/no/such/thing"))).toEqual({ file: "spec/paths/v1_speakers.yaml", line: lineOf("spec/paths/v1_speakers.yaml", /^get:/) + 1 });
  });
});
