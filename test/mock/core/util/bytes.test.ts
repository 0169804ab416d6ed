// The core's bytes are to be Uint8Array only (issue 45: under a DOM test environment Node's Buffer is not the realm's
// Uint8Array, and a browser has no Buffer but the one a bundler injects). The cursors are made and read without
// Buffer, the same tokens as before; and a ratchet: no file of src/mock/core uses Buffer more than it did when this
// was written (the counts below may only go down, and a file not listed may not start).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../../../scripts/lib/paths.js";
import { decodeCursor, encodeCursor } from "../../../../src/mock/core/store/lists.js";
import { writeCursor } from "../../../../src/mock/core/store/pages.js";
import { fromBase64Url, fromBase64UrlJson, toBase64Url } from "../../../../src/mock/core/util/digest.js";

/** Buffer uses left in src/mock/core, per file (comments not counted). */
const BUFFER_BUDGET: Record<string, number> = {
  "content/report-files.ts": 18,
  "http/body.ts": 9,
  "store/lists.ts": 6,
  "store/records.ts": 6,
  "store/answer.ts": 4,
  "stages/idempotency.ts": 4,
  "responders/store.ts": 4,
  "contract/validation.ts": 3,
  "store/derive.ts": 4,
  "stages/own-paths.ts": 2,
  "pipeline/context.ts": 2,
  "http/respond.ts": 3,
  "http/reply.ts": 2,
  "contract/preferences.ts": 2,
  "contract/contract-build.ts": 2,
  "store/handlers.ts": 1,
  "store/derived.ts": 1,
  "store/build.ts": 1,
  "stages/validate-body.ts": 1,
  "stages/read-body.ts": 1,
  "stages/mock-controls.ts": 1,
  "responders/examples.ts": 1,
  "pipeline/serve.ts": 1,
  "pipeline/platform.ts": 1,
  "contract/examples.ts": 1,
};

const CORE = path.join(ROOT, "src/mock/core");
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

/** Buffer uses per file of a folder, comments left out. */
function bufferUses(dir: string): Record<string, number> {
  const uses: Record<string, number> = {};
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
    const n = withoutComments(fs.readFileSync(path.join(dir, file), "utf8")).match(/\bBuffer\b/g)?.length ?? 0;
    if (n) uses[file.split(path.sep).join("/")] = n;
  }
  return uses;
}

describe("bytes in the core", () => {
  it("cursors are made and read without Buffer, the same tokens Buffer's base64url gave", () => {
    const position = { time: 1_795_093_200_000, seq: 42 };
    const cursor = encodeCursor(position);
    expect(cursor).toBe(Buffer.from(JSON.stringify([position.time, position.seq])).toString("base64url"));
    expect(decodeCursor(cursor)).toEqual(position);
    expect(writeCursor(7)).toBe(Buffer.from(JSON.stringify({ before: 7 })).toString("base64url"));
    expect(() => decodeCursor("not a cursor!")).toThrow(/cursor is not one this API gave/);
    const bytes = new Uint8Array([0, 250, 251, 252, 253, 254, 255, 62, 63]);
    expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    expect(fromBase64UrlJson(Buffer.from('{"a":"é"}').toString("base64"))).toEqual({ a: "é" });
  });

  it("no file of src/mock/core uses Buffer more than its budget (the budget only goes down)", () => {
    const over = Object.entries(bufferUses(CORE))
      .filter(([file, n]) => n > (BUFFER_BUDGET[file] ?? 0))
      .map(([file, n]) => `src/mock/core/${file}: ${n} uses of Buffer, budget ${BUFFER_BUDGET[file] ?? 0}: use Uint8Array (util/digest.ts has the conversions)`);
    expect(over).toEqual([]);
  });

  it("the budget check finds a new use", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bytes-test-"));
    try {
      fs.writeFileSync(path.join(dir, "new.ts"), `// Buffer in a comment is not a use\nexport const b = Buffer.from("x");\n`);
      expect(bufferUses(dir)).toEqual({ "new.ts": 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
