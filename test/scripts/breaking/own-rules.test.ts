// The gate's own rules (scripts/lib/diff/diff-rules.ts), for breaking changes `redocly diff` misses or rates too low:
// the rate-limit policy, an operation's rate-limit category, and a required response header becoming optional.
// The rules are pure functions over two bundles, so most cases run without redocly; one fixture runs the real
// `redocly diff` to show its miss next to our verdict.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import type { Json } from "../../../scripts/lib/contract.js";
import { compare, gateProblems, type Bundle, type Comparison, type RedoclyChange } from "../../../scripts/lib/diff/diff.js";
import { contractRules } from "../../../scripts/lib/diff/diff-rules.js";
import { operation, realBundle, scratchDir, writeBundle, type Mutation } from "./fixtures.js";

const bundle = (doc: Json): Bundle => ({ file: "mem.json", version: doc.info.version, doc, locate: (pointer) => ({ file: "mem.json", pointer }) });

/** Our rules' verdict on one mutation of the real bundle. */
function rules(mutate: Mutation) {
  const head = structuredClone(realBundle);
  mutate(head);
  return contractRules(bundle(realBundle), bundle(head));
}
const summary = (r: ReturnType<typeof rules>) => r.changes.map((c) => `${c.impact} ${c.rule} ${c.where}: ${c.message}`);

const policy = (d: Json) => d["x-rate-limit-policy"];
const firstPlan = (d: Json) => Object.keys(policy(d).plans)[0]!;

describe("x-rate-limit-policy (redocly sees no change there at all)", () => {
  it("an unchanged contract gives no change", () => {
    expect(rules(() => {}).changes).toEqual([]);
  });

  it("a lowered plan limit is major; a raised one is an addition (minor)", () => {
    const lowered = rules((d) => void (policy(d).plans[firstPlan(d)].requests_per_minute -= 1));
    expect(summary(lowered)).toEqual([expect.stringMatching(/^major contract\/rate-limit-policy x-rate-limit-policy `plans\.\w+\.requests_per_minute`: .*lowered/)]);
    const raised = rules((d) => void (policy(d).plans[firstPlan(d)].requests_per_day += 1));
    expect(summary(raised)).toEqual([expect.stringMatching(/^minor .*requests_per_day`: .*raised/)]);
  });

  it("a removed plan is major, an added plan minor", () => {
    expect(summary(rules((d) => void delete policy(d).plans[firstPlan(d)]))).toEqual([expect.stringMatching(/^major .*was removed/)]);
    expect(summary(rules((d) => void (policy(d).plans.enterprise = { requests_per_minute: 1, requests_per_day: 1 })))).toEqual([
      expect.stringMatching(/^minor .*`plans\.enterprise`.*was added/),
    ]);
  });

  it("categories: a lowered multiplier, a changed path rule, a removed category and a new order are major", () => {
    const heavy = (d: Json) => policy(d).categories.find((c: Json) => !c.default && c.path_contains);
    expect(summary(rules((d) => void (heavy(d).multiplier /= 2)))).toEqual([expect.stringMatching(/^major .*multiplier`: .*lowered/)]);
    expect(summary(rules((d) => void heavy(d).path_contains.pop()))).toEqual([expect.stringMatching(/^major .*path_contains`: .*changed from/)]);
    const removed = rules((d) => void policy(d).categories.splice(policy(d).categories.indexOf(heavy(d)), 1));
    expect(summary(removed)).toEqual([expect.stringMatching(/^major .*`categories\[\w+\]` was removed/)]);
    expect(summary(rules((d) => void policy(d).categories.reverse()))).toEqual([expect.stringMatching(/^major .*order of `categories` changed.*first match wins/)]);
  });

  it("a renamed header, a changed error code or a removed policy is major", () => {
    expect(summary(rules((d) => void (policy(d).headers.limit = "X-Rate-Limit")))).toEqual([expect.stringMatching(/^major .*`headers\.limit`/)]);
    expect(summary(rules((d) => void (policy(d).errors.minute.error = "too_many_requests")))).toEqual([expect.stringMatching(/^major .*`errors\.minute\.error`/)]);
    expect(summary(rules((d) => void delete d["x-rate-limit-policy"]))).toEqual([expect.stringMatching(/^major .*x-rate-limit-policy.*was removed/)]);
  });
});

describe("x-rate-limit-category (redocly rates a change a patch)", () => {
  const other = (d: Json, from: string) => policy(d).categories.map((c: Json) => c.name).find((n: string) => n !== from);

  it("a changed category is major and replaces redocly's patch entry", () => {
    const r = rules((d) => {
      const op = operation(d, "/v1/speakers", "get");
      op["x-rate-limit-category"] = other(d, op["x-rate-limit-category"]);
    });
    expect(summary(r)).toEqual([expect.stringMatching(/^major contract\/rate-limit-category GET \/v1\/speakers: `x-rate-limit-category` changed from `\w+` to `\w+`/)]);
    const redoclys = { path: "#/paths/~1v1~1speakers/get", property: "x-rate-limit-category", impact: "patch" } as RedoclyChange;
    expect(r.supersedes(redoclys)).toBe(true);
    expect(r.supersedes({ ...redoclys, property: "description" })).toBe(false);
  });

  it("a removed category is major", () => {
    expect(summary(rules((d) => void delete operation(d, "/v1/speakers", "get")["x-rate-limit-category"]))).toEqual([
      expect.stringMatching(/^major .*GET \/v1\/speakers: .* was removed/),
    ]);
  });
});

describe("a required response header becoming optional (redocly rates it a patch)", () => {
  it("a shared header is reported once, where it is defined, with the number of responses", () => {
    const r = rules((d) => void (d.components.headers["X-RateLimit-Limit"].required = false));
    expect(r.changes.map((c) => [c.impact, c.rule, c.pointer])).toEqual([["major", "contract/response-header-optional", "#/components/headers/X-RateLimit-Limit"]]);
    expect(Number(/in (\d+) responses/.exec(r.changes[0]!.message)?.[1])).toBeGreaterThan(100);
    const redoclys = { path: "#/paths/~1v1~1analyses/get/responses/200/headers/X-RateLimit-Limit", property: "required", impact: "patch" } as RedoclyChange;
    expect(r.supersedes(redoclys)).toBe(true);
  });

  it("an inline header is reported at its operation", () => {
    const r = rules((d) => void delete operation(d, "/v1/stream", "get").responses["101"].headers.Upgrade.required);
    expect(r.changes.map((c) => [c.impact, c.where])).toEqual([["major", "GET /v1/stream response 101 header Upgrade"]]);
  });

  it("a header becoming required, or staying optional, is not breaking", () => {
    expect(rules((d) => void (operation(d, "/v1/stream", "get").responses["101"].headers.Upgrade.required = true)).changes).toEqual([]);
  });
});

describe("against redocly diff itself", () => {
  let dir: string;
  let cmp: Comparison;
  beforeAll(async () => {
    dir = await scratchDir();
    const base = await writeBundle(dir, "base");
    const head = await writeBundle(dir, "head", (d) => {
      policy(d).plans[firstPlan(d)].requests_per_minute -= 1;
      const op = operation(d, "/v1/speakers", "get");
      op["x-rate-limit-category"] = policy(d).categories.find((c: Json) => c.name !== op["x-rate-limit-category"]).name;
      d.components.headers["X-RateLimit-Limit"].required = false;
    });
    cmp = await compare({ base, head });
  }, 120_000);
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("redocly reports none of the three as major; the gate fails on all three", () => {
    // redocly's miss: no major at all, the category and the header only as patches, the policy not at all.
    expect(cmp.redocly.filter((c) => c.impact === "major")).toEqual([]);
    expect(cmp.redocly.filter((c) => c.path.includes("x-rate-limit-policy"))).toEqual([]);
    expect(cmp.redocly.map((c) => `${c.impact} ${c.property}`)).toEqual(expect.arrayContaining(["patch x-rate-limit-category", "patch required"]));
    // Ours: each one named, major; redocly's patch entries for the same nodes are replaced, not listed twice.
    expect(cmp.changes.map((c) => `${c.impact} ${c.rule}`).sort()).toEqual([
      "major contract/rate-limit-category",
      "major contract/rate-limit-policy",
      "major contract/response-header-optional",
    ]);
    expect(gateProblems(cmp)).toHaveLength(1);
  });
});
