// The mock gateway: behaves like the real edge in front of Prism. This file wires it together: the shared
// services (services.ts), the request pipeline (pipeline.ts: the order every request travels, stage by stage),
// and the node:http server (http/server.ts); then listens and drains.
//
// Every response under /v1, /aria and /ws carries the five X-RateLimit-* headers with true values. A request
// without valid credentials has no workspace: it is counted per client address in an anonymous bucket with the
// policy's smallest plan, and its 401 carries that bucket's headers.
import { DEFAULT_GENERATED_DIR, loadContract } from "./contract-files.js";
import { nodePlatform } from "./platform.js";
import type http from "node:http";
import type { Contract } from "./contract-files.js";
import { createHttpServer, listen } from "./http-server.js";
import type { KeyStore } from "../../core/access/keys.js";
import { connectRedis, onceAcrossReplicas, redisReady, redisTrips } from "../../engines/redis/redis.js";
import { RedisEventFeeds } from "../../engines/redis/events-redis.js";
import { RedisClockShare } from "../../engines/redis/clock-redis.js";
import { RedisRateLimiter, redisHealth } from "../../engines/redis/limiter-redis.js";
import { DRAINING } from "../../core/responders/sse.js";
import type { Limiter } from "../../core/access/limiter.js";
import type { Store } from "../../core/store/store.js";
import { httpPipeline } from "../../core/pipeline/pipeline.js";
import { proxyPipeline, proxyUpgradePipeline, upgradePipeline } from "./pipelines.js";
import { serveRefusals, serveRequests, serveUpgrades } from "../../core/pipeline/serve.js";
import { freshIdHead } from "../../core/pipeline/request-id.js";
import { buildServices, type Services } from "../../core/pipeline/services.js";
import { StateDb } from "../../engines/sqlite/state-db.js";
import { isPostgresUrl, PgState } from "../../engines/postgres/state-pg.js";
import { forwardRequest } from "./forward.js";
import type { StateRegistry } from "../../core/state/state-registry.js";
import type { GatewayOptions } from "../../core/pipeline/options.js";
import { refusePublicSecret } from "./secret.js";
// Proxy mode (--upstream): its own pipelines, chosen below when `upstream` is set.
import { Proxy } from "../../proxy/proxy.js";
import { refuseMockSettings } from "../../proxy/upstream.js";
import type { Webhooks } from "../../core/events/webhooks.js";
import { GatewayMetrics } from "./observability/metrics.js";

export { DEFAULT_MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from "../../core/http/body.js";
export { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./http-server.js";
export type { GatewayOptions } from "../../core/pipeline/options.js";

export interface Gateway {
  readonly server: http.Server;
  readonly contract: Contract;
  readonly keys: KeyStore;
  readonly limiter: Limiter;
  /** The stateful mock's resources (a MockState, registered in `states`: reset, snapshot, restore). */
  readonly store: Store;
  /** The state kept between requests (reset by `POST /__mock/reset`). */
  readonly states: StateRegistry;
  /** The registered webhooks; `webhooks.emit(workspace, type, data)` delivers an event. */
  readonly webhooks: Webhooks;
  /** Base URL once listening, e.g. http://127.0.0.1:4010. */
  url: string;
  /**
   * Settles when Prism has loaded the contract; asking for it starts loading Prism, if nothing has yet. The
   * gateway does not wait for it: it answers from the contract's examples at once, and loads Prism on first need
   * (`Prefer: dynamic=true`, an Accept no documented media type satisfies). Loading blocks the event loop for a
   * second or two, so a test that must not see that pause awaits `ready` first.
   */
  readonly ready: Promise<{ operations: number }>;
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Drains: /health answers 503, streams and sockets are closed, pending webhook deliveries are aborted; then the
   * state file is written a last time.
   */
  close(): Promise<void>;
}

export async function createGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  if (opts.upstream) refuseMockSettings(opts as Record<string, unknown>);
  const redis = opts.redisUrl ? connectRedis(opts.redisUrl) : null;
  const feeds = redis ? new RedisEventFeeds(redis) : null;
  let clockShare: RedisClockShare | null = null;
  const s = buildServices({ ...opts, contract: opts.contract ?? loadContract(opts.generatedDir ?? DEFAULT_GENERATED_DIR) }, nodePlatform, {
    feeds: feeds ?? undefined,
    claim: redis ? (key) => onceAcrossReplicas(redis, key) : undefined,
    ...(redis
      ? {
          clockShare: (time) => (clockShare = new RedisClockShare(redis, time)),
          limiter: (policy, clock) => new RedisRateLimiter(policy, redis, clock, undefined, (v) => clockShare!.seen(v)),
          health: () => ({ redis: redisHealth(redis) }),
        }
      : {}),
  });
  let ready: Promise<{ operations: number }> | null = null;
  const stateDb = await openStateDb(s, opts);
  const proxy = opts.upstream ? new Proxy(s, { ...opts, upstream: opts.upstream }) : null;
  const pgState = stateDb instanceof PgState ? stateDb : null;
  const metrics = new GatewayMetrics(s, {
    postgres: () => pgState?.trips,
    redis: () => (redis ? redisTrips.get(redis) : undefined),
    queueDepth: () => pgState?.outbox?.depth(),
  });
  const serve = serveRequests(s, proxy ? proxyPipeline(s, proxy) : httpPipeline(s), metrics.served);
  const server = createHttpServer({
    // GET /metrics is the Node gateway's own (prom-client): answered before the pipeline, counted by none.
    request: (req, res) => void (metrics.answer(req, res) || serve(req, res)),
    upgrade: serveUpgrades(s, proxy ? proxyUpgradePipeline(s, proxy) : upgradePipeline(s)),
    // What node:http refuses itself carries the rate-limit headers of the mock's limiter; the proxy keeps none (G26).
    refused: proxy ? undefined : serveRefusals(s),
    // …and what it cannot parse goes to the backend as bytes, whose own answer comes back (proxy/unparsed.ts).
    ...(proxy ? { unparsed: proxy.relayUnparsed.bind(proxy) } : {}),
    requestTimeoutMs: opts.requestTimeoutMs,
    // Every answer carries the CORS headers, these too (Schemathesis's finding: a browser could not read them).
    head: s.head,
    ownHead: freshIdHead(s),
    maxConnections: s.settings.limits.connections,
    addressShare: s.settings.limits.addressShare,
    idleMs: s.settings.limits.connectionIdleMs,
  });
  const pruner = setInterval(() => s.limiter.prune(), 60_000);
  pruner.unref();

  const gateway: Gateway = {
    server,
    contract: s.contract,
    keys: s.keys,
    limiter: s.limiter,
    store: s.store,
    states: s.states,
    webhooks: s.webhooks,
    get ready() {
      return (ready ??= s.prism.get("gateway.ready").then((p) => ({ operations: p.operations })));
    },
    url: "",
    async listen(port = 4010, host = "127.0.0.1") {
      refusePublicSecret(host, s.secret);
      if (redis) await redisReady(redis, opts.redisUrl!);
      gateway.url = await listen(server, port, host);
      // A webhook must never call the gateway itself (webhooks.ts `reachesGateway`).
      const address = server.address();
      if (address && typeof address === "object") s.webhooks.ownPorts.add(address.port);
      s.store.baseUrl = gateway.url;
      // With ownership (SB29) other replicas forward this one's workspaces' requests to the address it listens on.
      if (pgState?.leases) pgState.leases.url = gateway.url;
      if (opts.warm) void s.validator.warmInBackground();
      return gateway.url;
    },
    async close() {
      clearInterval(pruner);
      proxy?.cutStreams();
      await drain(s, server);
      proxy?.close();
      await stateDb?.close();
      feeds?.close();
      clockShare?.close();
      redis?.disconnect();
    },
  };
  return gateway;
}

/**
 * Opens the state database, if there is one: every change is written to it from then on. A postgres:// URL is the
 * state replicas share (state-pg.ts): the pipeline then syncs each request's workspace (s.shared, set before the
 * pipeline is built).
 */
async function openStateDb(s: Services, opts: GatewayOptions): Promise<{ close(): unknown } | null> {
  if (!opts.stateFile) return null;
  if (s.settings.stateless) throw new Error("A state file keeps what requests create, and a stateless mock keeps nothing: use one or the other.");
  const log = (line: string) => s.sink?.(`${new Date(s.clock.now()).toISOString()} ${line}`);
  if (!isPostgresUrl(opts.stateFile)) return StateDb.open(opts.stateFile, s.states, { contract: s.contract, log });
  // Fault rules are shared by replicas (SB18; one process keeps them in memory only, RM19): a part of their state.
  s.states.register(s.faults);
  s.faults.onChange = () => s.states.changed();
  const shared = await PgState.open(opts.stateFile, s.states, { contract: s.contract, log, ownership: opts.ownership === true });
  s.shared = shared;
  const leases = shared.leases;
  if (leases) s.forward = (ctx, ws, owner) => forwardRequest(ctx, owner, () => leases.forget(ws));
  return shared;
}

/** How long in-flight requests have to finish once the gateway drains, before their connections are cut. */
export const DRAIN_GRACE_MS = 5_000;

/**
 * SIGTERM (decision SB11): /health turns 503 and the listening socket closes at once (a balancer's new connections
 * go to another replica); event streams end with a reconnect hint and WebSockets close with 1012 (service restart),
 * so clients resume elsewhere with Last-Event-ID; pending webhook deliveries are aborted; requests in flight are
 * answered (with `Connection: close`) within DRAIN_GRACE_MS, then whatever is left is cut.
 */
async function drain(s: Services, server: http.Server): Promise<void> {
  s.live.draining = true;
  const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  for (const ac of [...s.live.streams]) ac.abort(DRAINING);
  for (const ws of [...s.live.sockets]) ws.close(1012, "service restart: reconnect with last_event_id");
  // Connections turn idle as their streams and answers end: closed as soon as they do.
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  const cut = setTimeout(() => {
    server.closeAllConnections();
    for (const ws of s.live.sockets) ws.terminate();
  }, DRAIN_GRACE_MS);
  await s.webhooks.close();
  await closed;
  clearInterval(idle);
  clearTimeout(cut);
  s.wss?.close();
}
