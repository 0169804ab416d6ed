// Decision B12 (scripts/lib/diff/diff-narrowing.ts): request narrowings that break no documented use. An
// upper bound added where there was none is minor when no example of the baseline exceeds it; any other narrowing
// is minor only when scripts/redocly/accepted-narrowings.yaml lists it with that exact value. Everything else
// stays major.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import type { Json } from "../../../scripts/lib/contract.js";
import { compare, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { readAcceptedNarrowings } from "../../../scripts/lib/diff/diff-narrowing.js";
import { realBundle, schema, scratchDir, writeBundle } from "./fixtures.js";

let dir: string;
const results: Record<string, Comparison> = {};
const name = (d: Json) => schema(d, "ApiKeyCreate").properties.name;

beforeAll(async () => {
  dir = await scratchDir();
  // Bases without the bound (or with the old value); the head is always the real bundle.
  const head = await writeBundle(dir, "head");
  const cases: Record<string, (d: Json) => void> = {
    added: (d) => void delete name(d).maxLength,
    exceeded: (d) => {
      delete name(d).maxLength;
      name(d).examples = ["x".repeat(201)];
    },
    lowered: (d) => void (name(d).maxLength = 400),
    accepted: (d) => void (schema(d, "WebhookCreate").properties.url.pattern = "^https://"),
  };
  await Promise.all(
    Object.entries(cases).map(async ([k, mutate]) => {
      results[k] = await compare({ base: await writeBundle(dir, k, mutate), head });
    }),
  );
}, 120_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const at = (c: Comparison, where: RegExp) => c.changes.filter((x) => where.test(x.where)).map((x) => `${x.impact} ${x.rule}`);

describe("request narrowings", () => {
  it("an upper bound added where there was none, within every baseline example, is minor", () => {
    expect(at(results.added!, /^POST \/v1\/keys request body `name`$/)).toEqual(["minor contract/bound-added"]);
    expect(results.added!.impact).toBe("minor");
  });
  it("one that a baseline example exceeds stays major", () => {
    // (The planted example itself shows as a patch change.)
    expect(at(results.exceeded!, /^POST \/v1\/keys request body `name`$/)).toEqual(["major schema-constraint-changed", "patch "]);
  });
  it("an existing bound lowered stays major", () => {
    expect(at(results.lowered!, /^POST \/v1\/keys request body `name`$/)).toEqual(["major schema-constraint-changed"]);
  });
  it("a listed narrowing is minor only with the exact value listed", () => {
    expect(at(results.accepted!, /^POST \/v1\/webhooks request body `url`$/)).toEqual(["minor contract/accepted-narrowing"]);
    const list = readAcceptedNarrowings();
    const webhook = list.find((e) => e.pointer === "#/components/schemas/WebhookCreate/properties/url")!;
    expect(webhook.to).toBe(realBundle.components.schemas.WebhookCreate.properties.url.pattern);
    for (const e of list) expect(e.reason.length, e.pointer).toBeGreaterThan(20);
  });
});
