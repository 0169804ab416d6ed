// What the stages of every request share, built once per gateway from its options: the contract, the key store,
// the authenticator, the rate limiter, the validators, Prism, the webhooks, OAuth tokens and event scripts, the
// registry of the state kept between requests, and the gateway's live state (draining, open streams and sockets).
import { FileLinks } from "../content/file-links.js";
import { sleep } from "../util/sleep.js";
import { SeededStreams } from "../util/ids.js";
import type { WebSocket, WebSocketServer } from "ws";
import { Authenticator, jwtSecretFromEnv } from "../access/auth.js";
import type { Contract, Json } from "../contract/contract-build.js";
import type { RequestContext } from "./context.js";
import { EventScripts } from "../events/events.js";
import type { GatewayOptions } from "./options.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http/body.js";
import { demoKeys, KeyStore, loadKeysFile } from "../access/keys.js";
import { defaultScope, scopeCeiling, OAuthTokens } from "../access/oauth.js";
import { OpenStreams, type CredentialName } from "../access/revocation.js";
import { StateRegistry } from "../state/state-registry.js";
import { checkLatency } from "./latency.js";
import { RateLimiter, type Limiter } from "../access/limiter.js";
import { systemClock, type Clock } from "../clock/clock.js";
import type { SharedState } from "../state/shared-state.js";
import type { Reply } from "../http/reply.js";
import { consoleSink, formatRequestLine, redact, type LogSink, type RequestLogEntry } from "./log.js";
import { ContractExamples } from "../contract/examples.js";
import type { Platform } from "./platform.js";
import type { PrismSource } from "../contract/preferences.js";
import { corsHead } from "../contract/cors-head.js";
import { Store } from "../store/store.js";
import { SimulatedClock, type ClockShare } from "../clock/simulated.js";
import { Faults } from "../controls/faults.js";
import { loadFixtures, parseFixtures } from "../controls/fixtures.js";
import { readModel } from "../store/model.js";
import { RequestValidator } from "../contract/validation.js";
import { resolveLimits, type Limits } from "../access/limits.js";
import { StreamSlots } from "../access/streams.js";
import { localFeeds, type EventFeeds } from "../store/log.js";
import { Webhooks } from "../events/webhooks.js";
import type { RateLimitPolicy } from "../../../contract/policy.js";

export interface Services {
  readonly contract: Contract;
  readonly policy: RateLimitPolicy;
  /**
   * The gateway's one clock (core/clock/): simulated over `opts.clock` (the system's), handed to every part that
   * reads the time or sets a timer, and paused, resumed and stepped by `/__mock/clock`.
   */
  readonly clock: SimulatedClock;
  readonly keys: KeyStore;
  /** The seeded streams of the ids and secrets (`seed`); null without a seed. `/__mock/reset` restarts them. */
  readonly ids: SeededStreams | null;
  readonly auth: Authenticator;
  readonly limiter: Limiter;
  /** What /health reports of the engines replicas share besides PostgreSQL (`--redis`: `{redis: "ok"}`); null in one process. */
  readonly engineHealth: (() => Record<string, "ok" | "down">) | null;
  /** How the event streams read an analysis's log: its own in one process, a Redis Stream in replicas (SB10). */
  readonly feeds: EventFeeds;
  /** The state shared with other replicas (`--state postgres://…`, state-pg.ts), set before the pipeline is built; null otherwise. */
  shared: SharedState | null;
  /**
   * Sends a request to the replica at `owner` that owns workspace `ws` and pipes its answer back (TAKEN), with
   * ownership (SB29): the Node home's (homes/node/forward.ts), answering a Reply or TAKEN (a symbol here: stage.ts
   * imports this file); rejects with DependencyUnavailable when it cannot.
   */
  forward?: (ctx: RequestContext, ws: string, owner: string) => Promise<Reply | symbol | undefined>;
  readonly validator: RequestValidator;
  /** The contract's examples, as Prism would serve them; Prism itself for what they do not settle. */
  readonly examples: ContractExamples;
  readonly prism: PrismSource;
  readonly webhooks: Webhooks;
  readonly oauth: OAuthTokens;
  /** The open SSE streams and WebSockets of each credential, ended when it is revoked (revocation.ts). */
  readonly openStreams: OpenStreams;
  /** Ends the open streams of a revoked credential, once the revocation is committed. */
  revoked(name: CredentialName): void;
  /**
   * Every part of the state kept between requests (`POST /__mock/reset`, the state file). Empty with
   * `stateless`. A part joins with `states.register(part)`.
   */
  readonly states: StateRegistry;
  readonly scripts: EventScripts;
  /** The stateful mock: every workspace's resources (store/). Unused with `stateless`. */
  readonly store: Store;
  /** The clock shared by replicas (`--redis`, decision SB12); null in one process. */
  readonly clockShare: ClockShare | null;
  /** The fault rules of `/__mock/faults`. */
  readonly faults: Faults;
  /** ws's server for upgrades (null in-process, where no socket is opened). */
  readonly wss: WebSocketServer | null;
  /** The runtime's adapters (platform.ts). */
  readonly platform: Platform;
  /** Headers every answer carries (CORS), as a flat [name, value, …] list. */
  readonly head: readonly string[];
  readonly settings: {
    streamIntervalMs: number;
    maxBodyBytes: number;
    wsIdleTimeoutMs: number;
    /** Answers from the contract's examples only: nothing created is kept (option `stateless`). */
    stateless: boolean;
    /** Delay of every API answer, [min, max] ms; null for none (option `latencyMs`), and how it waits. */
    latency: [number, number] | null;
    sleep: (ms: number) => Promise<unknown>;
    /** The caps (limits.ts). */
    limits: Limits;
  };
  readonly live: { draining: boolean; readonly startedAt: number; readonly streams: Set<AbortController>; readonly sockets: Set<WebSocket> };
  readonly sink: LogSink | null;
  /** Open event streams and WebSocket sessions per workspace and address, capped (streams.ts). */
  readonly slots: StreamSlots;
  /** The HS256 secret of bearer JWTs (listening beyond loopback refuses the public default: secret.ts). */
  readonly secret: string;
  /** Writes the request's log line (nothing when logging is off). */
  logRequest(ctx: RequestContext, status: number): void;
}

/** Time between two processing steps of a stored resource (MOCK_STEP_MS). */
export const DEFAULT_STEP_MS = 2000;

/**
 * The engines a Node process connects to for its services (gateway.ts makes them from the options): kept out of
 * this file, so the in-process simulation's path never loads a database or network client (docs/architecture.md).
 */
export interface Engines {
  /** The rate limiter replicas share (engines/redis/limiter-redis.ts), made over the policy and the clock; the process's own when absent. */
  limiter?: (policy: RateLimitPolicy, clock: Clock) => Limiter;
  /** The simulated clock's state shared by replicas (engines/redis/clock-redis.ts), over this process's SimulatedClock. */
  clockShare?: (time: SimulatedClock) => ClockShare;
  /** What /health reports of those engines, by name. */
  health?: () => Record<string, "ok" | "down">;
  /** The event fan-out replicas share (events-redis.ts); the analysis's own log when absent. */
  feeds?: EventFeeds;
  /** Claims a delivery for this replica, once across all (redis.ts `onceAcrossReplicas`, decision SB13). */
  claim?: (key: string) => Promise<boolean>;
}

/**
 * The services of one gateway or simulation: `opts.contract` loaded (contract.ts under Node), `platform` its
 * runtime's adapters, `engines` the shared stores of a sandbox's replicas (none in a simulation).
 */
export function buildServices(opts: GatewayOptions & { contract: Contract }, platform: Platform, engines: Engines = {}): Services {
  const contract = opts.contract;
  const policy = contract.policy;
  const base = opts.clock ?? systemClock;
  const clock = new SimulatedClock(base);
  const sink = opts.log === undefined ? consoleSink : opts.log;
  const limits = resolveLimits(opts.limits);
  const fileKeys = opts.keysFile ? loadKeysFile(opts.keysFile, policy) : [];
  const fixtures = opts.fixtures
    ? loadFixtures(opts.fixtures, contract, readModel(contract), policy, platform.fixtures.read)
    : opts.fixturesText
      ? parseFixtures(opts.fixturesText.text, opts.fixturesText.source, contract, readModel(contract), policy, platform.fixtures.read)
      : null;
  const states = new StateRegistry();
  const onChange = () => states.changed();
  const ids = opts.seed === undefined ? null : new SeededStreams(opts.seed);
  const random = ids ?? undefined;
  const keys = new KeyStore([...demoKeys(policy), ...fileKeys, ...(fixtures?.keys ?? []), ...(opts.extraKeys ?? [])], { clock, onChange, contract, random });
  const secret = opts.jwtSecret ?? jwtSecretFromEnv();
  const openStreams = new OpenStreams();
  // A revocation ends its streams once it is committed, as every other effect of a write (DB13).
  const revoked = (name: CredentialName) => states.commitThen(() => openStreams.revoke(name), () => {});
  const oauth = new OAuthTokens({ secret, clock, onChange, onRevoke: revoked, defaultScope: defaultScope(contract.doc.paths ?? {}), boundByCaller: scopeCeiling(contract.doc.paths ?? {}), random });
  const apiKeyScheme = Object.values<Json>(contract.doc.components?.securitySchemes ?? {}).find((s) => s.type === "apiKey" && s.in === "header");
  const auth = new Authenticator({ keys, policy, clock, secret, apiKeyHeader: apiKeyScheme?.name ?? "X-API-Key", isRevoked: (c) => oauth.isRevoked(c) });
  const webhooks = new Webhooks(contract, {
    clock,
    deliveryDelayMs: opts.webhookDelayMs ?? 500,
    log: (d) => sink?.(`${new Date(clock.now()).toISOString()} webhook ${d.type} → ${redact(d.url)} ${d.status ?? d.error} ${d.ms.toFixed(1)}ms ${d.hook}`),
    onChange,
    allowLoopback: opts.allowLoopbackWebhooks ?? false,
    claim: engines.claim,
    wallClock: base,
    random,
  });
  const stateless = opts.stateless ?? false;
  const feeds = engines.feeds ?? localFeeds;
  const clockShare = engines.clockShare?.(clock) ?? null;
  let faults: Faults | undefined;
  const store = new Store({
    contract,
    clock,
    stepMs: opts.stepMs ?? DEFAULT_STEP_MS,
    webhooks,
    onChange,
    fixtures: fixtures?.workspaces,
    tapFor: feeds.tapFor,
    // Publish after commit (issue 47): a log's followers, like a webhook, hear of a change once it is durable.
    publish: (send, drop) => states.commitThen(send, drop),
    scenarioOf: (ws, rec, scenarios) => faults!.resourceScenario(rec.key, ws.id, scenarios),
    limits,
    links: new FileLinks(secret),
    random,
  });
  webhooks.afterCommit = (send, drop) => states.commitThen(send, drop);
  faults = new Faults(contract, store.model);
  if (!stateless) for (const part of [keys, webhooks, oauth, store]) states.register(part);
  return {
    contract,
    policy,
    clock,
    keys,
    ids,
    auth,
    limiter: engines.limiter?.(policy, clock) ?? new RateLimiter(policy, clock),
    engineHealth: engines.health ?? null,
    feeds,
    shared: null,
    validator: new RequestValidator(contract, limits),
    examples: new ContractExamples(contract),
    prism: platform.prism(contract.jsonPath, (why) => sink?.(`${new Date(clock.now()).toISOString()} loading Prism for ${why} (once; it takes a second or two)`)),
    webhooks,
    oauth,
    openStreams,
    revoked,
    states,
    scripts: new EventScripts(contract),
    store,
    clockShare,
    faults,
    wss: platform.webSocketServer(),
    platform,
    head: corsHead(contract),
    settings: {
      streamIntervalMs: opts.streamIntervalMs ?? 400,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      wsIdleTimeoutMs: opts.wsIdleTimeoutMs ?? 30_000,
      stateless,
      latency: opts.latencyMs === undefined || opts.latencyMs === null ? null : checkLatency(opts.latencyMs),
      sleep: opts.sleep ?? sleep,
      limits,
    },
    live: { draining: false, startedAt: clock.now(), streams: new Set(), sockets: new Set() },
    sink,
    slots: new StreamSlots(limits),
    secret,
    logRequest(ctx, status) {
      const entry: RequestLogEntry = { method: ctx.method, url: ctx.url, status, ms: performance.now() - ctx.t0, workspace: ctx.workspace };
      if (!opts.requestLog) return sink?.(formatRequestLine(entry, new Date(clock.now())));
      const requestId = ctx.idHead[1];
      opts.requestLog({ ...entry, url: redact(ctx.url), ...(requestId ? { requestId } : {}), ...(ctx.route ? { operation: ctx.route.operationId } : {}) });
    },
  };
}
