// The mock gateway's public surface (scripts/start.ts, tests, and the static docs site's Swagger page).
export { createGateway, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, MAX_UPLOAD_BYTES, type Gateway, type GatewayOptions } from "./gateway.js";
export { loadContract, withLimitScale, DEFAULT_GENERATED_DIR, type Contract, type Route } from "./contract.js";
export { demoKeys, loadKeysFile, KeyStore, KeysFileError, type KeyRecord } from "./keys.js";
export { mintToken, jwtSecretFromEnv, DEFAULT_JWT_SECRET } from "./auth.js";
export { RateLimiter, systemClock, type Clock, type Decision } from "./limiter.js";
export { swaggerPage, swaggerInitJs, swaggerCsp, tryItOutOrigins, readSwaggerAsset, SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE, SWAGGER_UI_DIR } from "./swagger.js";
export { webhookSignature, WEBHOOK_HEADERS } from "./webhooks.js";
export { redact } from "./log.js";
export { parseLatency, LatencyError, MAX_LATENCY_MS, type Latency } from "./latency.js";
export { StateFileError, STATE_FILE_VERSION } from "./state-file.js";
export type { MockState } from "./state.js";
export type { StateRegistry } from "./state-registry.js";
export { UpstreamError, parseUpstream } from "./proxy/upstream.js";
export { VIOLATIONS_PATH } from "./proxy/controls.js";
export type { ListedViolation } from "./proxy/violations.js";
export { FixturesError } from "./fixtures.js";
export { FaultError, type FaultRule, type ListedFault } from "./faults.js";
export { SettingsError, SETTINGS, readSettings } from "./settings.js";

export { isLoopbackHost, PublicSecretError, refusePublicSecret, startSecret } from "./secret.js";
export { DEFAULT_LIMITS, LIMIT_ROWS, LimitError, limitFlagOptions, limitsFromFlags, limitsHelp, resolveLimits, type Limits } from "./limits.js";
// In-process: the simulation (no port) and the typed controls of any mock, in-process or running.
export { createSimulation, type Simulation, type SimulationFixtures, type SimulationOptions } from "./simulation.js";
export { mockControls, MockControlError, type ClockControls, type ClockState, type FaultControls, type MockControls } from "./controls-api.js";
export type { InProcessFetch } from "./in-process.js";
