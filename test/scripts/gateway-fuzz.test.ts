// Property-based fuzzing of the mock gateway (test/robustness/lib/): 10,000 requests derived from the contract,
// valid and broken in every way cases.ts knows, each answer checked against the contract by oracle.ts. The seed
// is fixed in CI and random locally; a failure prints it with fast-check's path, and
// `FUZZ_SEED=… FUZZ_PATH=… FUZZ_RUNS=1 vitest run test/scripts/gateway-fuzz.test.ts` (or
// `npm run fuzz -- --seed … --path … --runs 1`) replays the failing request. FUZZ_RUNS changes the number of requests.
import { describe, expect, it } from "vitest";
import { chooseSeed, fuzzGateway } from "../helpers/robustness/fuzz.js";

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = chooseSeed();

describe("the mock gateway under fuzzing", () => {
  it(`answers ${runs} generated requests only as the contract allows, and stays up (seed ${seed})`, { timeout: 300_000 }, async () => {
    const report = await fuzzGateway({ runs, seed, path: process.env.FUZZ_PATH });
    if (process.env.FUZZ_PATH) return; // a replay of one case
    expect(report.runs).toBe(runs);
    if (runs < 1000) return;
    // The run reached every kind of case and the interesting answers, limits included.
    expect(Object.keys(report.byKind).sort()).toEqual([
      "bad-credentials",
      "huge-body",
      "malformed-http",
      "malformed-json",
      "mutated",
      "odd-headers",
      "odd-query",
      "path-traversal",
      "prefer",
      "preflight",
      "rate-limited",
      "unknown-method",
      "unknown-path",
      "unwanted-body",
      "valid",
      "wrong-content-type",
    ]);
    for (const status of [200, 201, 202, 204, 400, 401, 403, 404, 405, 422, 429]) expect(report.byStatus[status], `status ${status}`).toBeGreaterThan(0);
  });
});
