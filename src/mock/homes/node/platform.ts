// The Node adapters of the core (platform.ts): Prism loaded from node_modules on first need, ws's WebSocket server
// for upgrades, swagger-ui-dist's files read from disk, and fixtures in JSON or YAML (yaml's parser). createGateway and the Node createSimulation use it.
import { WebSocketServer } from "ws";
import type { Platform } from "../../core/pipeline/platform.js";
import { PrismOnDemand } from "./prism.js";
import { readSwaggerAsset } from "./swagger.js";
import { yamlFixtures } from "./fixtures-yaml.js";

export const nodePlatform: Platform = {
  prism: (jsonPath, loading) => new PrismOnDemand(jsonPath, loading),
  webSocketServer: () => new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 }),
  swaggerAsset: readSwaggerAsset,
  fixtures: yamlFixtures,
};
