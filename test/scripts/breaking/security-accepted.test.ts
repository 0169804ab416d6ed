// Decision B14: a break accepted as a security fix ships within the version; any other accepted break needs the
// next major. And `x-idempotency` is judged field by field: an operation that starts taking the key, or a
// fingerprint that covers one more part, is minor; the reverse, or any other field, is major.
import { describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import type { Json } from "../../../scripts/lib/contract.js";
import { clientFeltChanges } from "../../../scripts/lib/diff/diff-extensions.js";
import { gateProblems, type Bundle, type Comparison } from "../../../scripts/lib/diff/diff.js";
import { judge, loadPolicy } from "../../../scripts/lib/diff/diff-policy.js";
import type { Change } from "../../../scripts/lib/diff/diff-types.js";
import { realBundle, scratchDir } from "./fixtures.js";

const bundle = (doc: Json): Bundle => ({ file: "mem.json", version: doc.info.version, doc, locate: (pointer) => ({ file: "mem.json", pointer }) });
function idempotencyChanges(mutate: (x: Json) => void): string[] {
  const head = structuredClone(realBundle);
  mutate(head["x-idempotency"]);
  return clientFeltChanges(bundle(realBundle), bundle(head)).map((c) => `${c.impact}: ${c.message}`);
}

describe("x-idempotency, field by field (B14)", () => {
  it("an operation leaving `exempt` is minor, one entering it major, each named", () => {
    const exempt = Object.keys(realBundle["x-idempotency"].exempt);
    expect(idempotencyChanges((x) => delete x.exempt[exempt[0]!])).toEqual([expect.stringMatching(new RegExp(`^minor: \`${exempt[0]}\` now take`))]);
    expect(idempotencyChanges((x) => (x.exempt.createBoard = "planted"))).toEqual([expect.stringMatching(/^major: `createBoard` no longer take/)]);
  });

  it("a fingerprint part gained is minor, one lost major; another field is major and named", () => {
    const parts: string[] = realBundle["x-idempotency"].fingerprint;
    expect(idempotencyChanges((x) => x.fingerprint.push("headers"))).toEqual([expect.stringMatching(/^minor: The idempotency `fingerprint` now covers `headers`/)]);
    expect(idempotencyChanges((x) => (x.fingerprint = parts.filter((p) => p !== "body")))).toEqual([expect.stringMatching(/^major: The idempotency `fingerprint` no longer covers `body`/)]);
    expect(idempotencyChanges((x) => (x.window_seconds = 60))).toEqual([expect.stringMatching(/^major: `x-idempotency` `window_seconds` changed from `86400` to `60`/)]);
  });
});

describe("an accepted break: a security fix ships within the version, any other needs the next major (B14)", () => {
  const major: Change = { impact: "major", rule: "contract/scopes", where: "POST /v1/oauth/revoke", pointer: "#/paths/~1v1~1oauth~1revoke/post", message: "planted", operations: ["revokeOAuthToken (POST /v1/oauth/revoke)"] } as Change;
  async function gate(security: boolean | undefined): Promise<string[]> {
    const dir = await scratchDir();
    const ignore = path.join(dir, "ignore.yaml");
    const flag = security === undefined ? "" : `\n    security: ${security}`;
    await fs.writeFile(ignore, `accepted:\n  - rule: contract/scopes\n    operation: revokeOAuthToken${flag}\n    reason: planted\n`);
    const policy = await loadPolicy(undefined, ignore);
    const cmp = { base: { version: "1.3.0" }, head: { version: "1.3.0" }, changes: judge([major], policy), unusedAccepted: [] } as unknown as Comparison;
    await fs.rm(dir, { recursive: true, force: true });
    return gateProblems(cmp);
  }

  it("`security: true` passes at the same version; without it, the gate asks for 2.0.0", async () => {
    expect(await gate(true)).toEqual([]);
    expect((await gate(undefined)).join("\n")).toMatch(/set info\.version to 2\.0\.0/);
    expect((await gate(false)).join("\n")).toMatch(/set info\.version to 2\.0\.0/);
  });

  it("a `security` that is not a boolean is refused, naming the entry", async () => {
    const dir = await scratchDir();
    const ignore = path.join(dir, "ignore.yaml");
    await fs.writeFile(ignore, `accepted:\n  - rule: contract/scopes\n    operation: revokeOAuthToken\n    security: yes please\n    reason: planted\n`);
    await expect(loadPolicy(undefined, ignore)).rejects.toThrow(/accepted\[0\]\.security must be true or false/);
    await fs.rm(dir, { recursive: true, force: true });
  });
});
