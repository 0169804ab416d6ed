// The mock gateway's public surface (scripts/mock/start.ts, tests, and the static docs site's Swagger page).
export { createGateway, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, MAX_UPLOAD_BYTES, type Gateway, type GatewayOptions } from "./homes/node/gateway.js";
export { loadContract, withLimitScale, DEFAULT_GENERATED_DIR, type Contract, type Route } from "./homes/node/contract-files.js";
export { demoKeys, loadKeysFile, KeyStore, KeysFileError, type KeyRecord } from "./core/access/keys.js";
export { mintToken, jwtSecretFromEnv, DEFAULT_JWT_SECRET } from "./core/access/auth.js";
export { RateLimiter, type Decision } from "./core/access/limiter.js";
export { systemClock, type Clock, type TimeSource } from "./core/clock/clock.js";
export { SimulatedClock } from "./core/clock/simulated.js";
export { swaggerPage, swaggerInitJs, swaggerCsp, tryItOutOrigins, readSwaggerAsset, SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE, SWAGGER_UI_DIR } from "./homes/node/swagger.js";
export { webhookSignature, WEBHOOK_HEADERS } from "./core/events/webhooks.js";
export { redact } from "./core/pipeline/log.js";
export { parseLatency, LatencyError, MAX_LATENCY_MS, type Latency } from "./core/pipeline/latency.js";
export { StateFileError, STATE_FILE_VERSION } from "./engines/sqlite/state-file.js";
export type { MockState } from "./core/state/state.js";
export type { StateRegistry } from "./core/state/state-registry.js";
export { UpstreamError, parseUpstream } from "./proxy/upstream.js";
export { VIOLATIONS_PATH } from "./proxy/controls.js";
export type { ListedViolation } from "./proxy/violations.js";
export { FixturesError } from "./core/controls/fixtures.js";
export { FaultError, type FaultRule, type ListedFault } from "./core/controls/faults.js";
export { SettingsError, SETTINGS, readSettings } from "./homes/node/settings.js";

export { isLoopbackHost, PublicSecretError, refusePublicSecret, startSecret } from "./homes/node/secret.js";
export { DEFAULT_LIMITS, LIMIT_ROWS, LimitError, limitFlagOptions, limitsFromFlags, limitsHelp, resolveLimits, type Limits } from "./core/access/limits.js";
// In-process: the simulation (no port) and the typed controls of any mock, in-process or running.
export { createSimulation, type Simulation, type SimulationFixtures, type SimulationOptions } from "./homes/node/simulation.js";
export { mockControls, MockControlError, type ClockControls, type ClockState, type FaultControls, type MockControls } from "./core/controls/controls-api.js";
export type { InProcessFetch } from "./homes/fetch/in-process.js";
