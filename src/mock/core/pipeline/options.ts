// The gateway's options (createGateway's argument): the settings of a run, as types only. Below the gateway, the
// services and the stages, so each of them can read the options without importing the gateway (decision LY1).
import type { Contract } from "../contract/contract-build.js";
import type { KeyRecord } from "../access/key-record.js";
import type { Latency } from "./latency.js";
import type { Limits } from "../access/limits.js";
import type { Clock } from "../clock/clock.js";
import type { LogSink, RequestLog } from "./log.js";

export interface GatewayOptions {
  /** Folder holding openapi.json and openapi.yaml (default generated/). */
  generatedDir?: string;
  /** An already loaded contract (tests share one). */
  contract?: Contract;
  /** JSON file of extra keys (MOCK_KEYS_FILE). */
  keysFile?: string | null;
  extraKeys?: KeyRecord[];
  /**
   * The clock beneath the gateway's simulated one (core/clock/clock.ts): the system's by default. A test passes a
   * SimulatedClock held paused, so its tasks run when the test advances it, or a clock of its own.
   */
  clock?: Clock;
  /** HS256 secret of bearer JWTs (MOCK_JWT_SECRET, else the dev default). */
  jwtSecret?: string;
  /** Where request log lines go; null for none. Default: stdout. */
  log?: LogSink | null;
  /** Each request as a structured entry instead of a line of `log` (which still takes every other line). */
  requestLog?: RequestLog;
  /** Pause between streamed events, ms (SSE and WebSocket). */
  streamIntervalMs?: number;
  /** Delay before the sample deliveries of a new webhook, ms. */
  webhookDelayMs?: number;
  /** A live /v1/stream session ends after this long without a frame from the client, ms. */
  wsIdleTimeoutMs?: number;
  /** Compile every operation's validators in the background once listening (else each on first use). */
  warm?: boolean;
  /** Largest JSON, form or multipart body read into memory (default DEFAULT_MAX_BODY_BYTES); a larger one answers 400. */
  maxBodyBytes?: number;
  /**
   * Time a client has to send a whole request, headers and body (default 300 000 ms, node:http's); the headers
   * alone get at most 60 000 ms. A request not received in time answers 408 and its connection is closed.
   */
  requestTimeoutMs?: number;
  /** The stateful mock's settings: a processing step every `stepMs` (default 2000, MOCK_STEP_MS) of the clock. */
  stepMs?: number;
  /**
   * Delay of every answer under /v1, /aria and /ws, ms: a fixed time, or [min, max] for one drawn uniformly
   * (MOCK_LATENCY_MS, --latency). Whole milliseconds, at most a minute. Default: none.
   */
  latencyMs?: Latency | null;
  /** How the latency waits (tests pass their own, to see the delays asked for without waiting). */
  sleep?: (ms: number) => Promise<unknown>;
  /**
   * Today's example-only mock: every operation answered from the contract's examples, nothing the requests create
   * is kept (no runtime keys, OAuth tokens, webhooks or stored resources; no state file). Credentials, limits,
   * validation, billing's view of the limits, and the event streams work as always (--stateless).
   */
  stateless?: boolean;
  /** Loopback webhook URLs may be registered and are called (`--allow-loopback-webhooks`); otherwise 422 (SH15). */
  allowLoopbackWebhooks?: boolean;
  /**
   * SQLite database that keeps the state across restarts and crashes (--state, MOCK_STATE_FILE; state-db.ts):
   * opened now (a bad record throws StateFileError naming it; a JSON state file of earlier versions is migrated),
   * every change a request makes committed before its answer. Not with `stateless`.
   */
  stateFile?: string | null;
  /**
   * With a postgres:// state: each workspace owned by one replica under a lease, other replicas forwarding its
   * requests there (--ownership, MOCK_OWNERSHIP; decision SB29), rather than every replica holding every workspace.
   */
  ownership?: boolean;
  /**
   * Redis shared by the replicas of a sandbox (--redis, MOCK_REDIS_URL; redis.ts): the rate-limit counters live
   * there, so a key's limit holds across every replica (decision SB1). Default: none, counted in this process.
   */
  redisUrl?: string | null;
  /**
   * JSON or YAML file of a team's own records, loaded into named workspaces (--fixtures, MOCK_FIXTURES; fixtures.ts):
   * checked now against the contract's schemas and reference rules, a bad one throwing FixturesError.
   */
  fixtures?: string | null;
  /** The same records as text (JSON or YAML), `source` naming it in errors (createSimulation's `fixtures`). */
  fixturesText?: { text: string; source: string };
  /**
   * Proxy mode (--upstream, MOCK_UPSTREAM): the backend's base URL (http or https). Every request but the gateway's
   * own paths is forwarded there and its answer streamed back unchanged, each exchange judged against the contract
   * (GET /__mock/violations). No credentials, limits, examples or state of the mock's then: `stateless`,
   * `stateFile`, `latencyMs` and `keysFile` are refused with it (UpstreamError).
   */
  upstream?: string | null;
  /** Proxy mode: where violation lines go (default: `log`); the time the upstream has to answer; the body copy limit; the list's size. */
  violationLog?: LogSink | null;
  upstreamTimeoutMs?: number;
  maxValidatedBytes?: number;
  maxViolations?: number;
  /** The caps (limits.ts, docs/limits.md): any not given keeps its default; a bad value throws LimitError. */
  limits?: Partial<Limits>;
  /**
   * The seed of the ids minted and the secrets made (`createSimulation({ seed })`, `--seed`): one stream per
   * workspace (ids.ts SeededStreams), so they do not depend on the order workspaces are used; unset, WebCrypto.
   */
  seed?: string | number;
}
