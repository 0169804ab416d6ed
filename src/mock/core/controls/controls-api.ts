// Typed controls of a mock (decision MC3's `/__mock/` endpoints): the clock, the fault rules and reset, sent over
// any fetch. The same object drives a simulation in this process (createSimulation: its `fetch`) and a mock
// running elsewhere (`mockControls("http://127.0.0.1:4010")`, e.g. in Playwright tests that start the CLI), so the
// two never differ: both go through the `mockControls` stage (stages/mock-controls.ts).
import type { ClockState } from "../clock/simulated.js";
import type { FaultRule, ListedFault } from "./faults.js";

export type { ClockState, FaultRule, ListedFault };

export interface ClockControls {
  /** The simulated clock as it is now. */
  get(): Promise<ClockState>;
  /** Simulated time stops: nothing scheduled runs until resume or advance. */
  pause(): Promise<ClockState>;
  resume(): Promise<ClockState>;
  /** Moves simulated time `ms` forward, running every step that falls due on the way. */
  advance(ms: number): Promise<ClockState>;
}

export interface FaultControls {
  list(): Promise<ListedFault[]>;
  /** Adds a rule; a rule the contract does not allow rejects with MockControlError naming the field. */
  add(rule: FaultRule): Promise<ListedFault>;
  clear(): Promise<void>;
}

export interface MockControls {
  readonly clock: ClockControls;
  readonly faults: FaultControls;
  /** Every record, key and token back to the seeded start, the fault rules cleared, the clock running. */
  reset(): Promise<void>;
}

/** A control the mock refused: its status and `detail`. */
export class MockControlError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`${status}: ${detail}`);
  }
}

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The controls of the mock at `baseUrl`, through `fetch` (default: the global one). */
export function mockControls(baseUrl: string, fetch: Fetch = globalThis.fetch): MockControls {
  const base = baseUrl.replace(/\/+$/, "");
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) Object.assign(init, { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
    const res = await fetch(`${base}/__mock/${path}`, init);
    const text = await res.text();
    const value = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) throw new MockControlError(res.status, (value as { detail?: string } | undefined)?.detail ?? res.statusText);
    return value as T;
  }
  const clock = (action: string, ms?: number) => call<ClockState>("POST", "clock", ms === undefined ? { action } : { action, ms });
  return {
    clock: {
      get: () => call("GET", "clock"),
      pause: () => clock("pause"),
      resume: () => clock("resume"),
      advance: (ms) => clock("advance", ms),
    },
    faults: {
      list: async () => (await call<{ rules: ListedFault[] }>("GET", "faults")).rules,
      add: (rule) => call("POST", "faults", rule),
      clear: () => call("DELETE", "faults"),
    },
    reset: () => call("POST", "reset"),
  };
}
