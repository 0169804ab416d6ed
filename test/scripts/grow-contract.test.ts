// The benchmark's grown contract (scripts/bench/toolchain/grow-contract.ts: every /v1 path copied, operationIds suffixed) must
// still lint clean, or `npm run bench`'s toolchain section fails. It did once: copies of the operations that
// x-idempotency exempts were not exempt (lint policy/idempotency).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { growContract } from "../../scripts/bench/toolchain/grow-contract.js";
import { ROOT } from "../../scripts/lib/paths.js";

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "grow-contract-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the benchmark's grown contract", () => {
  it("doubles the /v1 operations and still lints clean (copies of exempt operations exempt too)", async () => {
    const g = growContract(2, dir);
    expect(g.operations).toBeGreaterThan(150);
    const r = await run(process.execPath, ["scripts/contract/lint.mjs", g.root], { cwd: ROOT }).then(
      (x) => ({ code: 0, out: x.stdout + x.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(r.code, r.out).toBe(0);
  }, 120_000);
});
