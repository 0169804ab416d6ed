// What the stages of every request share, built once per gateway from its options: the contract, the key store,
// the authenticator, the rate limiter, the validators, Prism, the webhooks and event scripts, and the gateway's
// live state (draining, open streams and sockets).
import type { WebSocket } from "ws";
import { WebSocketServer } from "ws";
import { Authenticator, jwtSecretFromEnv } from "./auth.js";
import { DEFAULT_GENERATED_DIR, loadContract, type Contract, type Json } from "./contract.js";
import type { RequestContext } from "./context.js";
import { EventScripts } from "./events.js";
import type { GatewayOptions } from "./gateway.js";
import { DEFAULT_MAX_BODY_BYTES } from "./http/body.js";
import { demoKeys, KeyStore, loadKeysFile } from "./keys.js";
import { RateLimiter, systemClock, type Clock } from "./limiter.js";
import { consoleSink, formatRequestLine, redact, type LogSink } from "./log.js";
import { PrismBackend } from "./prism.js";
import { corsHead } from "./stages/cors.js";
import { timerScheduler } from "./store/scheduler.js";
import { Store } from "./store/store.js";
import { RequestValidator } from "./validation.js";
import { Webhooks } from "./webhooks.js";
import type { RateLimitPolicy } from "../policy.js";

export interface Services {
  readonly contract: Contract;
  readonly policy: RateLimitPolicy;
  readonly clock: Clock;
  readonly keys: KeyStore;
  readonly auth: Authenticator;
  readonly limiter: RateLimiter;
  readonly validator: RequestValidator;
  readonly prism: { readonly ready: Promise<PrismBackend>; loaded: PrismBackend | null };
  readonly webhooks: Webhooks;
  readonly scripts: EventScripts;
  /** The stateful mock: every workspace's resources (store/). Unused with `stateless`. */
  readonly store: Store;
  readonly wss: WebSocketServer;
  /** Headers every answer carries (CORS), as a flat [name, value, …] list. */
  readonly head: readonly string[];
  readonly settings: { streamIntervalMs: number; maxBodyBytes: number; wsIdleTimeoutMs: number; stateless: boolean };
  readonly live: { draining: boolean; readonly startedAt: number; readonly streams: Set<AbortController>; readonly sockets: Set<WebSocket> };
  readonly sink: LogSink | null;
  /** Writes the request's log line (nothing when logging is off). */
  logRequest(ctx: RequestContext, status: number): void;
}

/** Time between two processing steps of a stored resource (MOCK_STEP_MS). */
export const DEFAULT_STEP_MS = 2000;

export function buildServices(opts: GatewayOptions): Services {
  const contract = opts.contract ?? loadContract(opts.generatedDir ?? DEFAULT_GENERATED_DIR);
  const policy = contract.policy;
  const clock = opts.clock ?? systemClock;
  const sink = opts.log === undefined ? consoleSink : opts.log;
  const fileKeys = opts.keysFile ? loadKeysFile(opts.keysFile, policy) : [];
  const keys = new KeyStore([...demoKeys(policy), ...fileKeys, ...(opts.extraKeys ?? [])]);
  const apiKeyScheme = Object.values<Json>(contract.doc.components?.securitySchemes ?? {}).find((s) => s.type === "apiKey" && s.in === "header");
  const auth = new Authenticator({ keys, policy, clock, secret: opts.jwtSecret ?? jwtSecretFromEnv(), apiKeyHeader: apiKeyScheme?.name ?? "X-API-Key" });
  const webhooks = new Webhooks(contract, {
    clock,
    deliveryDelayMs: opts.webhookDelayMs ?? 500,
    log: (d) => sink?.(`${new Date(clock.now()).toISOString()} webhook ${d.type} → ${redact(d.url)} ${d.status ?? d.error} ${d.ms.toFixed(1)}ms ${d.hook}`),
  });
  return {
    contract,
    policy,
    clock,
    keys,
    auth,
    limiter: new RateLimiter(policy, clock),
    validator: new RequestValidator(contract),
    prism: loadPrism(contract),
    webhooks,
    scripts: new EventScripts(contract),
    store: new Store({ contract, clock, scheduler: opts.scheduler ?? timerScheduler, stepMs: opts.stepMs ?? DEFAULT_STEP_MS, webhooks }),
    wss: new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 }),
    head: corsHead(policy),
    settings: {
      streamIntervalMs: opts.streamIntervalMs ?? 400,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      wsIdleTimeoutMs: opts.wsIdleTimeoutMs ?? 30_000,
      stateless: opts.stateless ?? false,
    },
    live: { draining: false, startedAt: clock.now(), streams: new Set(), sockets: new Set() },
    sink,
    logRequest(ctx, status) {
      sink?.(formatRequestLine({ method: ctx.method, url: ctx.url, status, ms: performance.now() - ctx.t0, workspace: ctx.workspace }, new Date(clock.now())));
    },
  };
}

/**
 * Loading Prism (it dereferences the whole contract) is most of the start-up time, so it happens while the
 * gateway already listens; requests that need it wait for it. `loaded` is set once it is there, so a request with
 * a cached answer needs no turn of the event loop.
 */
function loadPrism(contract: Contract): Services["prism"] {
  const slot: { ready: Promise<PrismBackend>; loaded: PrismBackend | null } = { ready: PrismBackend.create(contract.jsonPath), loaded: null };
  slot.ready.then(
    (p) => (slot.loaded = p),
    () => {}, // reported through the gateway's `ready` and to the requests that wait for it
  );
  return slot;
}
