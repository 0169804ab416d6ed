// The grammars of x-scopes, x-derived, x-status, x-completion and x-referenced-by (spec/README.md), each seen to fire
// on a contract broken in that one way: the lint rule `policy/contract-rules`. One small contract holds a well-formed
// resource (Thing) and one broken copy of the annotated schema per check, each in its own file, so one lint run
// covers every case.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { ROOT } from "../../scripts/lib/paths.js";
import { problemLines, redocly } from "../../scripts/lib/redocly.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function thing(): Json {
  return {
    type: "object",
    properties: { id: { type: "string" }, status: { type: "string", enum: ["new", "done"] }, summary: { type: ["string", "null"] }, other_id: { type: "string" } },
    "x-lifecycle": { property: "status", initial: "new", terminal: ["done"], transitions: [{ from: "new", to: "done", trigger: "async" }] },
    "x-completion": { done: [{ property: "summary", by: "summary" }, { operation: "getThing", by: "transcript" }] },
    "x-referenced-by": [{ schema: "Thing", property: "other_id", states: ["new"], blocks: [{ operation: "deleteThing" }] }],
  };
}
function create(): Json {
  return {
    type: "object",
    properties: { url: { type: "string" }, title: { type: "string", "x-derived": [{ from: "url", by: "last-path-segment" }] } },
    dependentSchemas: { url: { "x-status": 400, if: { required: ["url"] }, then: { required: ["title"] } } },
  };
}

type Case = [name: string, base: () => Json, mutate: (s: Json) => void, expected: RegExp];
const CASES: Case[] = [
  ["CompletionUnknownState", thing, (s) => (s["x-completion"].gone = []), /`gone` is not a state of CompletionUnknownState/],
  ["CompletionUnknownProperty", thing, (s) => (s["x-completion"].done[0].property = "abstract"), /has no property `abstract`/],
  ["CompletionBothKinds", thing, (s) => (s["x-completion"].done[0].operation = "getThing"), /exactly one of `property` and `operation`/],
  ["CompletionUnknownOperation", thing, (s) => (s["x-completion"].done[1].operation = "getThingy"), /No operation `getThingy`/],
  ["CompletionUnknownFiller", thing, (s) => (s["x-completion"].done[0].by = "magic"), /`by` is one of summary, .*not `magic`/],
  ["ReferencedByUnknownSchema", thing, (s) => (s["x-referenced-by"][0].schema = "Widget"), /`Widget` is not a component schema/],
  ["ReferencedByUnknownState", thing, (s) => (s["x-referenced-by"][0].states = ["gone"]), /`gone` is not a state of Thing/],
  ["ReferencedByWithout409", thing, (s) => (s["x-referenced-by"][0].blocks = [{ operation: "getThing" }]), /getThing answers 409 when blocked/],
  ["DerivedUnknownBy", create, (s) => (s.properties.title["x-derived"][0].by = "guess"), /`by` is one of last-path-segment, .*not `guess`/],
  ["DerivedEmpty", create, (s) => (s.properties.title["x-derived"] = []), /non-empty list/],
  ["DerivedReferencedUnknown", create, (s) => (s.properties.title["x-derived"] = [{ from: "url", by: "referenced", schema: "Thing", property: "name" }]), /Thing has no property `name`/],
  ["StatusNotClient", create, (s) => (s.dependentSchemas.url["x-status"] = 500), /`x-status` is a 4xx status code/],
  ["StatusWithoutIf", create, (s) => delete s.dependentSchemas.url.if, /belongs on a conditional subschema/],
];

const thingId = { name: "thing_id", in: "path", required: true, schema: { type: "string" } };
const ok = { "200": { description: "OK" } };

function fixture(): { root: Json; files: Record<string, Json> } {
  const files: Record<string, Json> = { "Thing.yaml": thing(), "ThingCreate.yaml": create() };
  for (const [name, base, mutate] of CASES) {
    const s = base();
    mutate(s);
    files[`${name}.yaml`] = s;
  }
  const root = {
    openapi: "3.1.0",
    info: { title: "Contract rules fixture", version: "1.0.0" },
    paths: {
      "/things": { post: { operationId: "createThing", "x-scopes": ["things:write"], requestBody: { content: { "application/json": { schema: { $ref: "schemas/ThingCreate.yaml" } } } }, responses: ok } },
      "/things/{thing_id}": {
        parameters: [thingId],
        get: { operationId: "getThing", "x-scopes": ["things:read"], responses: ok },
        delete: { operationId: "deleteThing", "x-scopes": ["things:write"], responses: { ...ok, "409": { description: "Conflict" } } },
        patch: { operationId: "updateThing", "x-scopes": ["things:read"], responses: ok },
      },
      "/gadgets": { get: { operationId: "listGadgets", responses: ok }, post: { operationId: "createGadget", "x-scopes": ["gadgets"], responses: ok } },
      // Issue 47: a revocation that declares no scope, and a key issuer bounded by its caller (allowed with a scope).
      "/revoke": { post: { operationId: "revokeGadget", "x-scopes": [], responses: ok } },
      "/keys": { post: { operationId: "createKey", "x-scopes": ["keys:write"], "x-scope-ceiling": "caller", responses: { "201": { description: "Created", content: { "application/json": { schema: { type: "object", properties: { secret: { type: "string" } } } } } } } } },
    },
    components: { schemas: Object.fromEntries(Object.keys(files).map((f) => [f.replace(".yaml", ""), { $ref: `schemas/${f}` }])) },
  };
  return { root, files };
}

let dir: string;
let lines: string[];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "contract-rules-lint-"));
  const { root, files } = fixture();
  await fs.mkdir(path.join(dir, "schemas"));
  await fs.writeFile(path.join(dir, "openapi.yaml"), stringify(root));
  for (const [name, schema] of Object.entries(files)) await fs.writeFile(path.join(dir, "schemas", name), stringify(schema));
  const plugin = path.join(ROOT, "scripts/redocly/policy-plugin.mjs");
  await fs.writeFile(path.join(dir, "redocly.yaml"), stringify({ plugins: [plugin], extends: [], rules: { "policy/contract-rules": "error" } }));
  const res = await redocly(["lint", path.join(dir, "openapi.yaml"), "--config", path.join(dir, "redocly.yaml"), "--format=stylish", "--max-problems=1000"]);
  lines = problemLines(res.output);
}, 60_000);
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("lint rule policy/contract-rules", () => {
  it("passes the well-formed resource and request", () => {
    expect(lines.filter((l) => /schemas\/(Thing|ThingCreate)\.yaml:/.test(l))).toEqual([]);
  });
  for (const [name, , , expected] of CASES) {
    it(`${name}: reported in its file, with line and column`, () => {
      const mine = lines.filter((l) => l.includes(`schemas/${name}.yaml:`));
      expect(mine.some((l) => /:\d+:\d+ error /.test(l) && expected.test(l) && l.endsWith("(policy/contract-rules)")), mine.join("\n") || "no problem reported").toBe(true);
    });
  }
  it("x-scopes: missing, malformed, and read/write not matching the method", () => {
    const root = lines.filter((l) => l.includes("openapi.yaml:"));
    expect(root.some((l) => /listGadgets needs credentials: declare the scopes/.test(l))).toBe(true);
    expect(root.some((l) => /`gadgets` is not a scope/.test(l))).toBe(true);
    expect(root.some((l) => /updateThing is a PATCH: its scope ends in `:write`, not `things:read`/.test(l))).toBe(true);
  });
  it("x-scopes: [] only on a token endpoint; x-scope-ceiling also on an operation that issues a key (issue 47)", () => {
    const root = lines.filter((l) => l.includes("openapi.yaml:"));
    expect(root.some((l) => /revokeGadget declares no scope/.test(l)), root.join("\n")).toBe(true);
    expect(root.some((l) => /createKey/.test(l) || /issues none/.test(l)), root.join("\n")).toBe(false);
  });
});
