// The gate fails on every kind of breaking change, and says what broke and where. Each fixture is the real bundle
// with one planted change, compared with an untouched copy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import { compare, gateProblems, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { textReport } from "../../../scripts/lib/diff/diff-report.js";
import { dropProperty, operation, pool, schema, scratchDir, writeBundle, type Mutation } from "./fixtures.js";
import type { Json } from "../../../scripts/lib/contract.js";

interface Case {
  name: string;
  mutate: Mutation;
  rule: string; // redocly's rule id that must name it
  where: RegExp; // the readable place the report must give
}

/** The JSON schema component a webhook event's payload refers to. */
const webhookPayload = (d: Json, event: string) =>
  schema(d, operation({ paths: d.webhooks }, event, "post").requestBody.content["application/json"].schema.$ref.split("/").pop());

const CASES: Case[] = [
  {
    name: "removed operation",
    mutate: (d) => void delete d.paths["/v1/speakers"].get,
    rule: "operation-removed",
    where: /^GET \/v1\/speakers$/,
  },
  {
    name: "removed response field",
    mutate: (d) => dropProperty(schema(d, "Speaker"), "sample_count"),
    rule: "property-removed",
    where: /response 2\d\d .*`.*sample_count`/,
  },
  {
    name: "newly required request field",
    mutate: (d) => schema(d, "SpeakerCreate").required.push("external_id"),
    rule: "required-properties-added",
    where: /^(POST|PUT|PATCH) \S+ request body/,
  },
  {
    name: "narrowed enum in a request",
    mutate: (d) => {
      const format = schema(d, "ReportCreate").properties.format;
      format.enum = format.enum.slice(0, -1);
    },
    rule: "enum-values-removed",
    where: /request body `format`/,
  },
  {
    name: "changed type",
    mutate: (d) => void (schema(d, "Speaker").properties.sample_count.type = "string"),
    rule: "schema-type-changed",
    where: /`.*sample_count`/,
  },
  {
    name: "removed security scheme",
    mutate: (d) => {
      delete d.components.securitySchemes.BearerAuth;
      const keep = (reqs: Json[] | undefined) => reqs?.filter((r) => !("BearerAuth" in r));
      d.security = keep(d.security);
      for (const item of Object.values<Json>(d.paths)) for (const op of Object.values<Json>(item)) if (op?.security) op.security = keep(op.security);
    },
    rule: "security-scheme-changed",
    where: /^security scheme BearerAuth$/,
  },
  {
    name: "removed rate-limit header",
    mutate: (d) => void delete operation(d, "/v1/speakers", "get").responses["200"].headers["X-RateLimit-Daily-Remaining"],
    rule: "response-header-removed",
    where: /^GET \/v1\/speakers response 200 header X-RateLimit-Daily-Remaining$/,
  },
  {
    name: "removed webhook event field",
    mutate: (d) => dropProperty(webhookPayload(d, "report.ready"), "workspace_id"),
    rule: "property-removed",
    // Redocly names the first place that uses the event schema: the webhook, or the test delivery's `event` (decision B11).
    where: /^(webhook report\.ready \(POST\) request body `workspace_id`|POST \/v1\/webhooks\/\{webhook_id\}\/test response 202 `event\..*report\.ready\.workspace_id`)$/,
  },
];

let dir: string;
const results = new Map<string, Comparison>();

beforeAll(async () => {
  dir = await scratchDir();
  const base = await writeBundle(dir, "base");
  const heads = await Promise.all(CASES.map((c, i) => writeBundle(dir, `head-${i}`, c.mutate)));
  const done = await pool(heads.map((head) => () => compare({ base, head })));
  CASES.forEach((c, i) => results.set(c.name, done[i]!));
}, 180_000);

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("check:breaking fails on each kind of breaking change", () => {
  for (const c of CASES) {
    it(`${c.name}: fails, naming ${c.rule} and where`, () => {
      const cmp = results.get(c.name)!;
      expect(cmp.impact).toBe("major");
      const problems = gateProblems(cmp);
      expect(problems.join("\n")).toMatch(/breaking change.*new prefix/s);
      const named = cmp.changes.filter((x) => x.impact === "major" && x.rule.includes(c.rule));
      expect(named.map((x) => x.where), JSON.stringify(cmp.changes.map((x) => [x.rule, x.where]))).toEqual(
        expect.arrayContaining([expect.stringMatching(c.where)]),
      );
      // The printed report carries the rule, the readable place and the pointer.
      const report = textReport(cmp, problems);
      const hit = named.find((x) => c.where.test(x.where))!;
      for (const s of [c.rule, hit.where, hit.pointer, "check:breaking FAILED"]) expect(report).toContain(s);
    });
  }
});
