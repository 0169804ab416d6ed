// @avt/mock/browser: createSimulation for a browser (MSW's setupWorker, Storybook): the same core as under Node
// (simulation-core.ts) with the contract bundled in (imported, not read from disk: generated/openapi.sim.json, the
// document without the prose the simulation never reads, and generated/openapi.yaml's text in a chunk of its own,
// loaded by the first GET /openapi.yaml; decision MC11) and no Node adapters: no Prism (an answer only Prism gives, `Prefer: dynamic=true`, is a 500 that says
// so), no WebSocket server, no swagger-ui assets. Its import graph has no node:* module (test/mock/homes/browser/core.test.ts).
import doc from "../../../../generated/openapi.sim.json" with { type: "json" };
import { buildContract, type Contract } from "../../core/contract/contract-build.js";
import type { FixturesFormat, Platform } from "../../core/pipeline/platform.js";
import { FixturesError } from "../../core/controls/fixtures.js";
import { parseJsonSource } from "../../core/state/json-file.js";
import type { PrismSource } from "../../core/contract/preferences.js";
import { simulate, type Simulation, type SimulationOptions } from "../fetch/simulation-core.js";

import { simulationHandlers } from "../fetch/msw.js";

export { simulationHandlers };
export type { Simulation, SimulationFixtures, SimulationOptions } from "../fetch/simulation-core.js";
export type { ClockControls, FaultControls } from "../../core/controls/controls-api.js";

const NO_PRISM: PrismSource = {
  loaded: null,
  get: () => Promise.reject(new Error("Prism is not bundled for the browser: an answer only Prism gives (Prefer: dynamic=true) needs the Node mock")),
};

/**
 * Fixtures in a browser: a fixtures object, written as JSON and read back with positions without yaml's parser
 * (json-file.ts; decision MC11). A path names a file a browser cannot read anyway.
 */
const jsonFixtures: FixturesFormat = {
  read: (text, file) => parseJsonSource(text, file, (m) => new FixturesError(m)),
  write: (fixtures) => JSON.stringify(fixtures, null, 2),
};

export const browserPlatform: Platform = { prism: () => NO_PRISM, webSocketServer: () => null, swaggerAsset: () => undefined, fixtures: jsonFixtures };

/** The YAML text, a chunk of its own: loaded by the first `GET /openapi.yaml`, never by a page that doesn't ask. */
const loadYaml = async (): Promise<Buffer> => Buffer.from((await import("../../../../generated/openapi.yaml", { with: { type: "text" } })).default);

let shared: Contract | null = null;
const runtime = {
  contract: () => (shared ??= buildContract(doc, { jsonPath: "generated/openapi.json", yamlPath: "generated/openapi.yaml", yamlBytes: loadYaml })),
  platform: browserPlatform,
  handlers: simulationHandlers,
};

export function createSimulation(options: SimulationOptions = {}): Simulation {
  return simulate(runtime, options);
}
