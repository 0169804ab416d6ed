// The checks of x-lifecycle, each seen to fire on a contract broken in that one way, through both of their callers:
// the lint rule `policy/lifecycle` (Redocly walking the source files) and `readLifecycles` (a bundled contract).
// One small contract holds a well-formed resource (Thing) and one broken copy of it per check, each in its own file,
// so one lint run and one bundle cover every case.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { bundleContract } from "../../scripts/lib/contract.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { problemLines, redocly } from "../../scripts/lib/redocly.js";
import { readLifecycles } from "../../src/contract/lifecycle.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ok = (schema?: Json) => ({ "200": { description: "OK", ...(schema ? { content: { "application/json": { schema } } } : {}) } });
const conflict = { "409": { description: "Conflict" } };
const thingId = { name: "thing_id", in: "path", required: true, schema: { type: "string", pattern: "^thg_[0-9A-Za-z]{8,40}$" } };
const gadgetId = { name: "gadget_id", in: "path", required: true, schema: { type: "string", pattern: "^gdg_[0-9A-Za-z]{8,40}$" } };

/** The well-formed resource every case starts from. */
function thing(): Json {
  return {
    type: "object",
    description: "A thing.\n\n<!-- x-lifecycle -->",
    properties: {
      id: { type: "string", pattern: "^thg_[0-9A-Za-z]{8,40}$" },
      status: { $ref: "ThingStatus.yaml" },
      done_at: { type: ["string", "null"], format: "date-time" },
      count: { type: "integer", maximum: 10 },
      gadget_id: { type: ["string", "null"] },
    },
    "x-lifecycle": {
      property: "status",
      initial: "new",
      terminal: ["done", "dropped"],
      transitions: [
        { from: "new", to: "busy", trigger: "async" },
        { from: "busy", to: "done", trigger: "async" },
        { from: "busy", to: "dropped", trigger: "async", scenario: "fail" },
        { from: ["new", "busy"], to: "dropped", trigger: "operation", operation: "stopThing" },
        { from: "busy", to: "new", trigger: "update", operation: "updateThing" },
        { from: "new", to: "dropped", trigger: "timeout", after: "PT1H", deadline: "done_at" },
      ],
      requires: { getThingReport: ["done"], stopThing: ["new", "busy"] },
      set: { done: { done_at: "$now", count: 10 } },
      emits: { done: ["thing.done"] },
    },
  };
}

type Case = [name: string, mutate: (s: Json, lc: Json) => void, expected: RegExp, lintOnly?: boolean];
const CASES: Case[] = [
  ["UnknownField", (_, lc) => (lc.states = ["new"]), /unknown field "states"/],
  ["PropertyMissing", (_, lc) => (lc.property = "state"), /has no property "state"/],
  ["PropertyNotEnum", (_, lc) => (lc.property = "count"), /PropertyNotEnum\.count must be a string enum/],
  ["InitialNotState", (_, lc) => (lc.initial = "old"), /initial "old" is not a state of status/],
  ["TerminalNotState", (_, lc) => lc.terminal.push("gone"), /terminal state "gone" is not a state/],
  ["LeavesTerminal", (_, lc) => lc.transitions.push({ from: "done", to: "new", trigger: "external" }), /"done" is terminal: no transition may leave it/],
  ["Unreachable", (_, lc) => lc.transitions.splice(0, 1), /state "busy" cannot be reached from "new"/],
  ["NeverEnds", (_, lc) => (lc.transitions = [lc.transitions[0], { from: "new", to: "done", trigger: "external" }, { from: "new", to: "dropped", trigger: "external" }]), /state "busy" can never reach a terminal state/],
  ["UnknownOperation", (_, lc) => (lc.transitions[3].operation = "stopThingy"), /no operation has operationId "stopThingy"/],
  ["OtherResource", (_, lc) => (lc.transitions[3].operation = "getGadget"), /getGadget does not act on a OtherResource/],
  ["RequiresWithout409", (_, lc) => (lc.requires.getThing = ["done"]), /getThing answers 409 outside done, so it must document a 409 response/],
  ["RequiresBlocksTransition", (_, lc) => (lc.requires.stopThing = ["new"]), /stopThing requires new, so it can never move the resource from "busy"/],
  ["UpdateWithoutProperty", (_, lc) => (lc.transitions[4].operation = "getThing"), /getThing is an update trigger, but its request body has no property "status"/],
  ["MissingTriggerField", (_, lc) => delete lc.transitions[5].after, /a timeout transition needs "after"/],
  ["FieldOfOtherTrigger", (_, lc) => (lc.transitions[0].operation = "stopThing"), /unknown field "operation"/],
  ["BadTrigger", (_, lc) => (lc.transitions[0].trigger = "cron"), /trigger must be one of async, operation, update, timeout, external, linked/],
  ["BadDuration", (_, lc) => (lc.transitions[5].after = "72h"), /after must be an ISO 8601 duration/],
  ["TwoDefaults", (_, lc) => delete lc.transitions[2].scenario, /"busy" already has a default \(scenario-less\) async transition/],
  ["UnknownWebhook", (_, lc) => (lc.emits.done = ["thing.gone"]), /"thing\.gone" is not a webhook of the contract \(thing\.done\)/],
  ["SetUnknownProperty", (_, lc) => (lc.set.done.finished_at = "$now"), /has no property "finished_at"/],
  ["SetInvalidValue", (_, lc) => (lc.set.done.count = 11), /11 is not a valid SetInvalidValue\.count/],
  ["SetNowNotTime", (_, lc) => (lc.set.done.count = "$now"), /SetNowNotTime\.count must be a date-time string/],
  ["SetState", (_, lc) => (lc.set.done.status = "done"), /status is the state itself/],
  ["LinkedNotLifecycle", (_, lc) => lc.transitions.push({ from: "busy", to: "new", trigger: "linked", link: "gadget_id", schema: "Gadget", when: ["x"] }), /"Gadget" is not a schema with an x-lifecycle/],
  ["LinkedUnknownState", (_, lc) => lc.transitions.push({ from: "busy", to: "new", trigger: "linked", link: "gadget_id", schema: "Thing", when: ["gone"] }), /"gone" is not a state of Thing/],
  ["CreatesBadLink", (_, lc) => (lc.transitions[0].creates = { schema: "Thing", link: "gadget", back_link: "id" }), /creates\.link "gadget" is not a property/],
  ["NoMarker", (s) => (s.description = "A thing."), /must hold the marker <!-- x-lifecycle -->/, true],
  ["Nested", (s, lc) => (s.properties.count["x-lifecycle"] = lc), /belongs on a resource schema/, true],
];

/** Request bodies with an `x-references` property (decision LC12): a well-formed one, then one broken copy per check. */
const reference = (refs: Json, type: Json = "string"): Json => ({ type: "object", properties: { thing_ids: { type: "array", items: { type, "x-references": refs } } } });
const REFERENCE_CASES: Array<[name: string, schema: Json, expected: RegExp]> = [
  ["RefUnknownSchema", reference({ schema: "Widget" }), /"Widget" is not one/],
  ["RefNoLifecycle", reference({ schema: "Gadget", states: ["x"] }), /Gadget has no x-lifecycle/],
  ["RefUnknownState", reference({ schema: "Thing", states: ["gone"] }), /"gone" is not a state of Thing/],
  ["RefNotString", reference({ schema: "Thing" }, "integer"), /belongs on a string property/],
  ["RefUnknownField", reference({ schema: "Thing", when: ["done"] }), /unknown field "when"/],
];

function fixture(): { root: Json; files: Record<string, Json> } {
  const files: Record<string, Json> = {
    "ThingStatus.yaml": { type: "string", enum: ["new", "busy", "done", "dropped"] },
    "Thing.yaml": thing(),
    "Gadget.yaml": { type: "object", properties: { id: { type: "string", pattern: gadgetId.schema.pattern } } },
    "RefWellFormed.yaml": reference({ schema: "Thing", states: ["done"] }),
  };
  for (const [name, schema] of REFERENCE_CASES) files[`${name}.yaml`] = schema;
  for (const [name, mutate] of CASES) {
    const s = thing();
    mutate(s, s["x-lifecycle"]);
    files[`${name}.yaml`] = s;
  }
  const ref = (f: string) => ({ $ref: `schemas/${f}` });
  const root = {
    openapi: "3.1.0",
    info: { title: "Lifecycle fixture", version: "1.0.0" },
    paths: {
      "/things/{thing_id}": {
        parameters: [thingId],
        get: { operationId: "getThing", responses: ok(ref("Thing.yaml")) },
        patch: {
          operationId: "updateThing",
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { status: ref("ThingStatus.yaml") } } } } },
          responses: { ...ok(ref("Thing.yaml")), ...conflict },
        },
      },
      "/things/{thing_id}/report": { parameters: [thingId], get: { operationId: "getThingReport", responses: { ...ok(), ...conflict } } },
      "/things/{thing_id}/stop": { parameters: [thingId], post: { operationId: "stopThing", responses: { ...ok(), ...conflict } } },
      "/gadgets/{gadget_id}": { parameters: [gadgetId], get: { operationId: "getGadget", responses: ok(ref("Gadget.yaml")) } },
    },
    webhooks: { "thing.done": { post: { requestBody: { content: { "application/json": { schema: ref("Thing.yaml") } } }, responses: ok() } } },
    components: { schemas: Object.fromEntries(Object.keys(files).map((f) => [f.replace(".yaml", ""), ref(f)])) },
  };
  return { root, files };
}

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "lifecycle-lint-"));
  const { root, files } = fixture();
  await fs.mkdir(path.join(dir, "schemas"));
  await fs.writeFile(path.join(dir, "openapi.yaml"), stringify(root));
  for (const [name, schema] of Object.entries(files)) await fs.writeFile(path.join(dir, "schemas", name), stringify(schema));
  const plugin = path.join(ROOT, "scripts/redocly/policy-plugin.mjs");
  await fs.writeFile(path.join(dir, "redocly.yaml"), stringify({ plugins: [plugin], extends: [], rules: { "policy/lifecycle": "error" } }));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("lint rule policy/lifecycle", () => {
  let lines: string[];
  beforeAll(async () => {
    const res = await redocly(["lint", path.join(dir, "openapi.yaml"), "--config", path.join(dir, "redocly.yaml"), "--format=stylish", "--max-problems=1000"]);
    lines = problemLines(res.output);
  }, 60_000);

  it("passes the well-formed lifecycle and reference", () => {
    expect(lines.filter((l) => /schemas\/(Thing|ThingStatus|Gadget|RefWellFormed)\.yaml:/.test(l))).toEqual([]);
  });
  for (const [name, , expected] of REFERENCE_CASES) {
    it(`${name}: an x-references problem reported in its file, with line and column`, () => {
      const mine = lines.filter((l) => l.includes(`schemas/${name}.yaml:`));
      expect(mine.some((l) => /:\d+:\d+ error /.test(l) && expected.test(l) && l.endsWith("(policy/lifecycle)")), mine.join("\n") || "no problem reported").toBe(true);
    });
  }
  for (const [name, , expected] of CASES) {
    it(`${name}: reported in its file, with line and column`, () => {
      const mine = lines.filter((l) => l.includes(`schemas/${name}.yaml:`));
      expect(mine.some((l) => /:\d+:\d+ error /.test(l) && expected.test(l) && l.endsWith("(policy/lifecycle)")), mine.join("\n") || "no problem reported").toBe(true);
    });
  }
});

describe("readLifecycles on the bundled fixture", () => {
  let message: string;
  beforeAll(async () => {
    const doc = await bundleContract(path.join(dir, "openapi.yaml"));
    message = (() => {
      try {
        readLifecycles(doc, { validate: (s, v) => (s.maximum !== undefined && typeof v === "number" && v > s.maximum ? "too big" : undefined) });
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    })();
  }, 60_000);

  it("passes the well-formed lifecycle", () => {
    expect(message).toMatch(/^x-lifecycle has \d+ problem/);
    expect(message.split("\n").filter((l) => l.trim().startsWith("Thing:"))).toEqual([]);
  });
  for (const [name, , expected, lintOnly] of CASES) {
    if (lintOnly) continue;
    it(`${name}: named by schema and field`, () => {
      const mine = message.split("\n").filter((l) => l.trim().startsWith(`${name}: x-lifecycle`));
      expect(mine.some((l) => expected.test(l)), mine.join("\n") || "no problem reported").toBe(true);
    });
  }
});
