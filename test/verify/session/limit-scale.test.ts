// --limit-scale (decision Y38): the mock multiplies every plan's limits for conformance runs, and verify reads the
// policy the same way, so a run against such a mock waits for no window and every rate-limit rule still holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withLimitScale } from "../../../src/mock/index.js";
import { readSettings } from "../../../src/mock/homes/node/settings.js";
import { scalePolicy } from "../../../src/contract/policy.js";
import { verify } from "../../../src/verify/index.js";
import { contract, ManualClock, startGateway, type TestGateway } from "../../helpers/mock.js";
import { BUSINESS_KEY } from "../fixtures/keys.js";
import { listed } from "../helpers.js";

const scaled = withLimitScale(contract, 100);
let g: TestGateway;
const clock = new ManualClock();
beforeAll(async () => {
  g = await startGateway({ contract: scaled, clock });
  await g.gateway.ready;
});
afterAll(() => g.close());

const run = (limitScale?: number) =>
  verify({ target: g.url, apiKey: BUSINESS_KEY, contract, rps: null, operations: "listAnalyses", maxWaitSeconds: 0, ...(limitScale ? { limitScale } : {}), clock: { now: () => clock.now(), sleep: async (ms) => clock.advance(ms) } });

describe("--limit-scale", () => {
  it("multiplies every plan's per-minute and daily limits, nothing else; 1 is the contract itself", () => {
    const p = scalePolicy(contract.policy, 100);
    for (const [name, l] of Object.entries(contract.policy.plans)) expect(p.plans[name]).toEqual({ requests_per_minute: l.requests_per_minute * 100, requests_per_day: l.requests_per_day * 100 });
    expect(p.categories).toEqual(contract.policy.categories);
    expect(scaled.doc["x-rate-limit-policy"]).toEqual(p);
    expect(withLimitScale(contract, 1)).toBe(contract);
    expect(() => scalePolicy(contract.policy, 0)).toThrow(/whole number/);
  });

  it("is off by default and read from --limit-scale or MOCK_LIMIT_SCALE", () => {
    expect(readSettings([], {}).limitScale).toBe(1);
    expect(readSettings(["--limit-scale", "50"], {}).limitScale).toBe(50);
    expect(readSettings([], { MOCK_LIMIT_SCALE: "7" }).limitScale).toBe(7);
    expect(() => readSettings(["--limit-scale", "0"], {})).toThrow(/--limit-scale must be a whole number from 1/);
  });

  it("a scaled mock answers the scaled limits: verify told the same scale finds nothing, verify not told finds the limits off the policy", async () => {
    const told = await run(100);
    expect(told.violations, listed(told)).toEqual([]);
    expect(told.waited_ms).toBe(0);
    const untold = await run();
    expect([...new Set(untold.violations.map((v) => v.rule))]).toContain("rate-limit-semantics");
  });
});
