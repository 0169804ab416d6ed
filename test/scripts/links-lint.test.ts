// Lint rule policy/links: a link whose operationId, parameter or expression names nothing is reported, in its
// file, with line and column; a link that resolves is not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { ROOT } from "../../scripts/lib/paths.js";
import { problemLines, redocly } from "../../scripts/lib/redocly.js";

let dir: string;
let lines: string[];
const thingId = { name: "thing_id", in: "path", required: true, schema: { type: "string" } };
const thing = { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } };
const link = (operationId: string, parameters: Record<string, string>) => ({ operationId, parameters });

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "links-lint-"));
  const links = {
    good: link("getThing", { thing_id: "$response.body#/id" }),
    noSuchOperation: link("getNothing", { thing_id: "$response.body#/id" }),
    noSuchParameter: link("getThing", { widget_id: "$response.body#/id" }),
    noSuchField: link("getThing", { thing_id: "$response.body#/identifier" }),
    noSuchPathParameter: link("getThing", { thing_id: "$request.path.other_id" }),
  };
  const root = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/things": { post: { operationId: "createThing", responses: { "201": { description: "Created", content: { "application/json": { schema: thing } }, links } } } },
      "/things/{thing_id}": { get: { operationId: "getThing", parameters: [thingId], responses: { "200": { description: "OK" } } } },
    },
  };
  await fs.writeFile(path.join(dir, "openapi.yaml"), stringify(root));
  const plugin = path.join(ROOT, "scripts/redocly/policy-plugin.mjs");
  await fs.writeFile(path.join(dir, "redocly.yaml"), stringify({ plugins: [plugin], extends: [], rules: { "policy/links": "error" } }));
  const res = await redocly(["lint", path.join(dir, "openapi.yaml"), "--config", path.join(dir, "redocly.yaml"), "--format=stylish"]);
  lines = problemLines(res.output);
}, 60_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("lint rule policy/links", () => {
  const cases: Array<[string, RegExp]> = [
    ["noSuchOperation", /no operation has operationId "getNothing"/],
    ["noSuchParameter", /"widget_id" is not a parameter of getThing/],
    ["noSuchField", /\$response\.body#\/identifier names nothing in the 201 response's JSON body/],
    ["noSuchPathParameter", /the operation has no path parameter "other_id"/],
  ];
  for (const [name, expected] of cases) {
    it(`${name}: reported at the link, with line and column`, () => {
      const mine = lines.filter((l) => l.includes(`link "${name}"`));
      expect(mine.some((l) => /openapi\.yaml:\d+:\d+ error /.test(l) && expected.test(l) && l.endsWith("(policy/links)")), lines.join("\n")).toBe(true);
    });
  }

  it("a link that resolves is not reported", () => {
    expect(lines.filter((l) => l.includes('link "good"'))).toEqual([]);
    expect(lines).toHaveLength(cases.length);
  });
});
