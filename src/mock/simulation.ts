// createSimulation: the whole mock in this process, with no port (simulation-core.ts), on Node: the contract read
// from generated/ once per process (read-only, shared by every simulation) and the Node adapters (node-platform.ts).
// A browser app imports @avt/mock/browser instead (browser.ts): the same core with the contract bundled.
import { DEFAULT_GENERATED_DIR, loadContract, type Contract } from "./contract.js";
import { nodePlatform } from "./node-platform.js";
import { simulate, type Simulation, type SimulationOptions } from "./simulation-core.js";

export type { Simulation, SimulationFixtures, SimulationOptions } from "./simulation-core.js";

let shared: Contract | null = null;
// No WebSocket server: nothing in-process upgrades a connection.
const runtime = { contract: () => (shared ??= loadContract(DEFAULT_GENERATED_DIR)), platform: { ...nodePlatform, webSocketServer: () => null } };

export function createSimulation(options: SimulationOptions = {}): Simulation {
  return simulate(runtime, options);
}
