// The gate judges what a client feels that `redocly diff` rates a patch or misses: schema defaults, this
// contract's own extensions (x-lifecycle, x-extensible-enum, x-scopes, ...) and readOnly/writeOnly, each change
// naming every operation the changed schema reaches. Planted one at a time on a copy of the real bundle; one
// case runs the real `redocly diff` end to end through `npm run check:breaking`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../../../scripts/lib/paths.js";
import type { Json } from "../../../scripts/lib/contract.js";
import { clientFeltChanges, reachers } from "../../../scripts/lib/diff/diff-extensions.js";
import { type Bundle } from "../../../scripts/lib/diff/diff.js";
import { reached } from "../../../scripts/lib/diff/diff-pointer.js";
import { realBundle, runScript, schema, scratchDir, writeBundle, type Mutation } from "./fixtures.js";

const bundle = (doc: Json): Bundle => ({ file: "mem.json", version: doc.info.version, doc, locate: (pointer) => ({ file: "mem.json", pointer }) });
function felt(mutate: Mutation) {
  const head = structuredClone(realBundle);
  mutate(head);
  return clientFeltChanges(bundle(realBundle), bundle(head)).map((c) => `${c.impact} ${c.rule} ${c.where}: ${c.message}${c.operations?.length ? ` ${reached(c.operations)}` : ""}`);
}
/** The first schema (by name) with a lifecycle, and the error codes' extensible enum: found, not named. */
const lifecycled = (d: Json) => Object.values<Json>(d.components.schemas).find((s) => s["x-lifecycle"]?.transitions?.length)!;
const errorCodes = (d: Json): string[] => schema(d, "Error").properties.error["x-extensible-enum"];
/** A request schema field with a default: read from the contract. */
const defaulted = (d: Json): [string, string] => {
  for (const [name, s] of Object.entries<Json>(d.components.schemas)) {
    for (const [field, p] of Object.entries<Json>(s.properties ?? {})) if (p?.default !== undefined && typeof p.default === "boolean" && /Create$/.test(name)) return [name, field];
  }
  throw new Error("fixture needs a *Create schema with a boolean default");
};

describe("client-felt changes, planted one at a time", () => {
  it("an unchanged contract gives none", () => {
    expect(felt(() => {})).toEqual([]);
  });

  it("a changed request default is breaking, naming the schema, field, rule and its operations", () => {
    const [name, field] = defaulted(realBundle);
    const out = felt((d) => void (schema(d, name).properties[field].default = !schema(d, name).properties[field].default));
    expect(out).toEqual([expect.stringMatching(new RegExp(`^major contract/schema-default \`${name}\` field \`${field}\`: The \`default\` changed from .* Reached by [1-9]\\d* operations?: \\w+ \\((POST|PUT|PATCH) /v1/`))]);
  });

  it("a renamed x-extensible-enum value is breaking (the old value lost) and the new one an addition", () => {
    const old = errorCodes(realBundle).find((c) => c.startsWith("key_"))!;
    const out = felt((d) => void errorCodes(d).splice(errorCodes(d).indexOf(old), 1, `api_${old}`));
    expect(out).toEqual([
      expect.stringMatching(new RegExp(`^major contract/extensible-enum \`Error\` field \`error\`: \`x-extensible-enum\` lost \`${old}\`.*Reached by \\d{2,} operations`)),
      expect.stringMatching(new RegExp(`^minor contract/extensible-enum .*gained \`api_${old}\``)),
    ]);
  });

  it("a removed lifecycle transition is breaking; an added one is an addition", () => {
    const s = lifecycled(realBundle);
    const name = Object.keys(realBundle.components.schemas).find((k) => realBundle.components.schemas[k] === s)!;
    const t = s["x-lifecycle"].transitions.at(-1);
    const from = [t.from].flat()[0];
    const removed = felt((d) => {
      const tr = schema(d, name)["x-lifecycle"].transitions.at(-1);
      tr.from = [tr.from].flat().filter((f: string) => f !== from);
      if (!tr.from.length) schema(d, name)["x-lifecycle"].transitions.pop();
    });
    expect(removed).toEqual([expect.stringMatching(new RegExp(`^major contract/lifecycle \`${name}\`: The lifecycle's transitions lost \`${from} → ${t.to}\``))]);
    const added = felt((d) => void schema(d, name)["x-lifecycle"].transitions.push({ from: t.to, to: from, trigger: "external" }));
    expect(added).toEqual([expect.stringMatching(/^minor contract\/lifecycle .*transitions gained/)]);
  });

  it("a new required scope and a removed idempotency promise are breaking; readOnly on a field is breaking", () => {
    const scoped = Object.values<Json>(realBundle.paths).flatMap((i) => Object.values<Json>(i)).find((op) => op?.["x-scopes"]?.length)!;
    const op = scoped.operationId;
    const find = (d: Json) => Object.values<Json>(d.paths).flatMap((i) => Object.values<Json>(i)).find((o) => o?.operationId === op)!;
    expect(felt((d) => void find(d)["x-scopes"].push("admin:everything"))).toEqual([expect.stringMatching(new RegExp(`^major contract/scopes .*requires \`admin:everything\`.*${op}`))]);
    const [name, field] = defaulted(realBundle);
    expect(felt((d) => void (schema(d, name).properties[field].readOnly = true))).toEqual([
      expect.stringMatching(new RegExp(`^major contract/schema-readonly \`${name}\` field \`${field}\`: .*no longer part of requests`)),
    ]);
  });

  it("every operation a component reaches is named, through nested $refs", () => {
    const reach = reachers(realBundle);
    // Error is reached by almost every operation (its responses), through the shared responses.
    const ops = Object.values<Json>(realBundle.paths).flatMap((i) => Object.values<Json>(i)).filter((o) => o?.operationId).length;
    expect(reach(["components", "schemas", "Error"]).length).toBeGreaterThan(ops / 2);
  });
});

describe("npm run check:breaking end to end (real redocly diff)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("fails on a changed default (redocly alone rates it a patch), naming operation, field and rule", async () => {
    const [name, field] = defaulted(realBundle);
    const base = await writeBundle(dir, "base");
    const head = await writeBundle(dir, "head", (d) => void (schema(d, name).properties[field].default = !schema(d, name).properties[field].default));
    const r = await runScript("check-breaking.ts", ["--base", base, "--head", head]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`✖ major  \`${name}\` field \`${field}\`\\n\\s+contract/schema-default: .*Reached by .*\\((POST|PUT|PATCH) /v1/`));
    expect(r.stdout).toMatch(/check:breaking FAILED/);
  }, 120_000);

  it("refuses to judge a stale generated/: spec/ edited without `npm run generate`", async () => {
    await fs.cp(path.join(ROOT, "spec"), path.join(dir, "spec"), { recursive: true });
    const root = path.join(dir, "spec/openapi.yaml");
    const text = await fs.readFile(root, "utf8");
    await fs.writeFile(root, text.replace(/^(info:\n(?:  .*\n)*?  title: .*)$/m, "$1 (edited)"));
    expect(await fs.readFile(root, "utf8")).not.toBe(text);
    const r = await runScript("check-breaking.ts", ["--spec", root]);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/generated\/openapi\.yaml is stale: it is not what `npm run generate` makes of .*spec\/openapi\.yaml now/);
  }, 300_000);
});
