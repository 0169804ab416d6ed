// Shared set-up of the verifier tests: one mock gateway per file on a free loopback port with a simulated clock held
// paused, and a verify() that waits by moving that clock (a Retry-After of 40 s costs no real time), unpaced. Moving
// it runs what falls due on the mock meanwhile (a lifecycle's processing steps), as real time would for a real
// backend while the verifier sleeps: a created analysis is queued, then processing, then completed as the run's
// clock moves (the x-lifecycle sampling, probes/sampling.ts).
import { afterAll, beforeAll, beforeEach } from "vitest";
import { verify, type Report, type VerifyOptions } from "../../src/verify/index.js";
import type { GatewayOptions } from "../../src/mock/index.js";
import { SimulatedClock } from "../../src/mock/core/clock/simulated.js";
import { systemClock } from "../../src/mock/core/clock/clock.js";
import { contract, startGateway, T0, type TestClock, type TestGateway } from "../helpers/mock.js";

import { BUSINESS_KEY } from "./fixtures/keys.js";

export { BUSINESS_KEY, LIMITED_KEY } from "./fixtures/keys.js";

export interface MockHandle {
  g: TestGateway;
  clock: TestClock;
  /** Sleeps done by the verifier, in ms, in order. */
  sleeps: number[];
  run(target: string, o?: Partial<VerifyOptions>): Promise<Report>;
}

const DAY = 86_400_000;

/** Starts a mock gateway for the file; every test starts at 12:00:30 UTC on a day of its own, so no limit carries over. */
export function useMock(gatewayOptions: Omit<GatewayOptions, "clock"> = {}): MockHandle {
  const h = { sleeps: [] as number[] } as MockHandle;
  beforeAll(async () => {
    h.clock = new SimulatedClock(systemClock, { frozenAt: T0 });
    // Webhooks registered by the run (example URLs on example.com) are never called: no traffic leaves the host.
    h.g = await startGateway({ clock: h.clock, webhookDelayMs: 1_000_000_000, ...gatewayOptions });
    await h.g.gateway.ready;
  });
  afterAll(() => h.g.close());
  beforeEach(() => {
    h.clock.set(Math.floor(h.clock.now() / DAY) * DAY + DAY + 12 * 3_600_000 + 30_000);
    h.sleeps.length = 0;
  });
  h.run = (target, o = {}) =>
    verify({
      target,
      apiKey: BUSINESS_KEY,
      contract,
      rps: null,
      maxWaitSeconds: 3600,
      clock: { now: () => h.clock.now(), sleep: async (ms) => void (h.sleeps.push(ms), h.clock.advance(ms)) },
      ...o,
    });
  return h;
}

/** The rules a report names, each once, sorted. */
export function rules(report: Report): string[] {
  return [...new Set(report.violations.map((v) => v.rule))].sort();
}

/** A readable list of the violations, for assertion messages. */
export function listed(report: Report): string {
  return report.violations.map((v) => `${v.operationId} [${v.rule}] ${v.status}: ${v.message}`).join("\n");
}
