// The mock gateway: behaves like the real edge in front of Prism. This file wires it together: the shared
// services (services.ts), the request pipeline (pipeline.ts: the order every request travels, stage by stage),
// and the node:http server (http/server.ts); then listens and drains.
//
// Every response under /v1, /aria and /ws carries the five X-RateLimit-* headers with true values. A request
// without valid credentials has no workspace: it is counted per client address in an anonymous bucket with the
// policy's smallest plan, and its 401 carries that bucket's headers.
import type http from "node:http";
import type { Contract } from "./contract.js";
import { createHttpServer, listen } from "./http/server.js";
import type { KeyRecord, KeyStore } from "./keys.js";
import type { Clock, RateLimiter } from "./limiter.js";
import type { LogSink } from "./log.js";
import type { Scheduler } from "./store/scheduler.js";
import type { Store } from "./store/store.js";
import { httpPipeline, upgradePipeline } from "./pipeline.js";
import { serveRequests, serveUpgrades } from "./serve.js";
import { buildServices, type Services } from "./services.js";

export { DEFAULT_MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from "./http/body.js";
export { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./http/server.js";

export interface GatewayOptions {
  /** Folder holding openapi.json and openapi.yaml (default generated/). */
  generatedDir?: string;
  /** An already loaded contract (tests share one). */
  contract?: Contract;
  /** JSON file of extra keys (MOCK_KEYS_FILE). */
  keysFile?: string | null;
  extraKeys?: KeyRecord[];
  clock?: Clock;
  /** HS256 secret of bearer JWTs (MOCK_JWT_SECRET, else the dev default). */
  jwtSecret?: string;
  /** Where request log lines go; null for none. Default: stdout. */
  log?: LogSink | null;
  /** Pause between streamed events, ms (SSE and WebSocket). */
  streamIntervalMs?: number;
  /** Delay before the sample deliveries of a new webhook, ms. */
  webhookDelayMs?: number;
  /** A live /v1/stream session ends after this long without a frame from the client, ms. */
  wsIdleTimeoutMs?: number;
  /** Compile every operation's validators in the background once Prism is loaded (else each on first use). */
  warm?: boolean;
  /** Largest JSON, form or multipart body read into memory (default DEFAULT_MAX_BODY_BYTES); a larger one answers 400. */
  maxBodyBytes?: number;
  /**
   * Time a client has to send a whole request, headers and body (default 300 000 ms, node:http's); the headers
   * alone get at most 60 000 ms. A request not received in time answers 408 and its connection is closed.
   */
  requestTimeoutMs?: number;
  /** The stateful mock's settings: a processing step every `stepMs` (default 2000, MOCK_STEP_MS) on `scheduler` (default real timers; tests pass a ManualScheduler). */
  stepMs?: number;
  scheduler?: Scheduler;
  /** Answers from the contract's examples only, as before the store: nothing is kept between requests. */
  stateless?: boolean;
}

export interface Gateway {
  readonly server: http.Server;
  readonly contract: Contract;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  /** The stateful mock's resources (a MockState: reset, snapshot, restore). */
  readonly store: Store;
  /** Base URL once listening, e.g. http://127.0.0.1:4010. */
  url: string;
  /**
   * Settles when Prism has loaded the contract. The gateway may listen before that: health, documentation, auth
   * and limits answer at once, mock answers wait for Prism. (Loading blocks the event loop for a few seconds.)
   */
  readonly ready: Promise<{ operations: number }>;
  listen(port?: number, host?: string): Promise<string>;
  /** Drains: /health answers 503, streams and sockets are closed, pending webhook deliveries are aborted. */
  close(): Promise<void>;
}

export async function createGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const s = buildServices(opts);
  const ready = s.prism.ready.then((p) => {
    if (opts.warm) void s.validator.warmInBackground();
    return { operations: p.operations };
  });
  const server = createHttpServer({
    request: serveRequests(s, httpPipeline(s)),
    upgrade: serveUpgrades(s, upgradePipeline(s)),
    requestTimeoutMs: opts.requestTimeoutMs,
  });
  const pruner = setInterval(() => s.limiter.prune(), 60_000);
  pruner.unref();

  const gateway: Gateway = {
    server,
    contract: s.contract,
    keys: s.keys,
    limiter: s.limiter,
    store: s.store,
    ready,
    url: "",
    async listen(port = 4010, host = "127.0.0.1") {
      return (gateway.url = await listen(server, port, host));
    },
    async close() {
      clearInterval(pruner);
      await drain(s, server);
    },
  };
  return gateway;
}

/** /health turns 503, streams and sockets close, webhook deliveries are aborted, then the server closes. */
async function drain(s: Services, server: http.Server): Promise<void> {
  s.live.draining = true;
  for (const ac of s.live.streams) ac.abort();
  for (const ws of s.live.sockets) ws.close(1001, "server shutting down");
  await s.webhooks.close();
  await new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
    // Whatever is still open after a moment (a slow client, a socket mid-handshake) is cut.
    setTimeout(() => {
      server.closeAllConnections();
      for (const ws of s.live.sockets) ws.terminate();
    }, 1000).unref();
  });
  s.wss.close();
}
