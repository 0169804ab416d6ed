// Every report names every operation a change reaches, whichever rule found it (issue 48): redocly's built-in
// rules report a change of a shared component through one operation; the gate names all of them, folded on the
// terminal ("…, and N more"), in full in Markdown and JUnit; and JUnit counts one failure per breaking change.
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachers } from "../../../scripts/lib/diff/diff-extensions.js";
import { realBundle, runScript, schema, scratchDir, writeBundle } from "./fixtures.js";

const users = (name: string) => reachers(realBundle)(["components", "schemas", name]);

let dir = "";
let base = "";
beforeAll(async () => {
  dir = await scratchDir();
  base = await writeBundle(dir, "base");
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("the operations a change reaches, in every report", () => {
  it("Speaker.external_id no longer required (a redocly rule): every operation answering a Speaker, on the terminal and in JUnit; one JUnit failure", async () => {
    const head = await writeBundle(dir, "speaker", (d) => void (schema(d, "Speaker").required = schema(d, "Speaker").required.filter((r: string) => r !== "external_id")));
    const ops = users("Speaker");
    expect(ops.length).toBe(4);
    const text = await runScript("check-breaking.ts", ["--base", base, "--head", head]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(`Reached by 4 operations: ${ops.join(", ")}.`);
    const junit = await runScript("check-breaking.ts", ["--base", base, "--head", head, "--format", "junit"]);
    const majors = (text.stdout.match(/✖ major {2}/g) ?? []).length;
    expect(majors).toBe(1);
    expect(junit.stdout).toContain(`failures="${majors}"`);
    for (const op of ops) expect(junit.stdout).toContain(op.replace(/[<>]/g, ""));
  }, 120_000);

  it("critical removed from AlertSeverity: the use case bodies it breaks are named, not only the alerts' query parameter; the terminal folds past 10, Markdown lists all", async () => {
    const head = await writeBundle(dir, "severity", (d) => void (schema(d, "AlertSeverity").enum = ["low", "medium", "high"]));
    const text = await runScript("check-breaking.ts", ["--base", base, "--head", head]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/createUseCase \(POST \/v1\/use-cases\)/);
    expect(text.stdout).toMatch(/updateUseCase \(PATCH \/v1\/use-cases\/\{use_case_id\}\)/);
    const ops = users("AlertSeverity");
    const md = await runScript("check-breaking.ts", ["--base", base, "--head", head, "--format", "markdown"]);
    for (const op of ops) expect(md.stdout).toContain(op);
    if (ops.length > 10) expect(text.stdout).toContain(`and ${ops.length - 10} more.`);
  }, 120_000);
});
