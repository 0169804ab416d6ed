// createSimulation: the whole mock in this process, with no port (simulation-core.ts), on Node: the contract read
// from generated/ once per process (read-only, shared by every simulation) and the Node adapters (node-platform.ts).
// A browser app imports @avt/mock/browser instead (browser.ts): the same core with the contract bundled.
import { createRequire } from "node:module";
import { DEFAULT_GENERATED_DIR, loadContract, type Contract } from "./contract-files.js";
import { handlersWith } from "../fetch/msw-routes.js";
import { nodePlatform } from "./platform.js";
import { simulate, type Simulation, type SimulationOptions } from "../fetch/simulation-core.js";

export type { Simulation, SimulationFixtures, SimulationOptions } from "../fetch/simulation-core.js";

let shared: Contract | null = null;

/** msw, an optional peer, loaded when a simulation's `handlers` are first read (with a clear error without it). */
function msw(): typeof import("msw") {
  try {
    return createRequire(import.meta.url)("msw") as typeof import("msw");
  } catch (e) {
    throw new Error("sim.handlers needs msw: npm install --save-dev msw", { cause: e });
  }
}

const runtime = {
  contract: () => (shared ??= loadContract(DEFAULT_GENERATED_DIR)),
  // No WebSocket server: nothing in-process upgrades a connection.
  platform: { ...nodePlatform, webSocketServer: () => null },
  handlers: (sim: Parameters<typeof handlersWith>[1]) => handlersWith(msw().http, sim),
};

export function createSimulation(options: SimulationOptions = {}): Simulation {
  return simulate(runtime, options);
}
