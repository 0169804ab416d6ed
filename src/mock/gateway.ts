// The mock gateway: behaves like the real edge in front of Prism.
//
//   request ─► CORS ─► gateway's own paths (/health, /healthz, /openapi.yaml, /swagger.html, /swagger-ui/*)
//           ─► under /v1, /aria, /ws: authenticate ─► count (rate limit) ─► frozen? ─► route ─► validate
//           ─► SSE / WebSocket / webhooks handled here, everything else answered by Prism from the examples.
//
// Every response under /v1, /aria and /ws carries the five X-RateLimit-* headers with true values. A request
// without valid credentials has no workspace: it is counted per client address in an anonymous bucket with the
// policy's smallest plan, and its 401 carries that bucket's headers.
import http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { CategoryRule } from "../policy.js";
import type { components } from "../../generated/schema.js";
import { Authenticator, jwtSecretFromEnv, MESSAGES, type Principal } from "./auth.js";
import { DEFAULT_GENERATED_DIR, loadContract, type Contract, type Json, type Route } from "./contract.js";
import { EventScripts, newId, sseMessage, play, resumeAfter } from "./events.js";
import { demoKeys, KeyStore, loadKeysFile, type KeyRecord } from "./keys.js";
import { RateLimiter, systemClock, type Clock, type Decision, type Subject } from "./limiter.js";
import { consoleSink, formatRequestLine, redact, type LogSink } from "./log.js";
import { parsePrefer, preferProblem, PrismBackend, type MockAnswer, type Preferences } from "./prism.js";
import { runAnalysisEvents, runLiveSession } from "./sessions.js";
import { readSwaggerAsset, swaggerCsp, swaggerInitJs, swaggerPage, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE } from "./swagger.js";
import { BadRequest, isJsonMediaType, RequestValidator } from "./validation.js";
import { publicView, Webhooks } from "./webhooks.js";

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
}

export interface Gateway {
  readonly server: http.Server;
  readonly contract: Contract;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
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

interface Admitted {
  route: Route;
  params: Record<string, string>;
  principal: Principal;
  rate: Record<string, string>;
  prefer: Preferences;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
}

type Admission = { ok: true; a: Admitted } | { ok: false; reply: Reply };

/** Largest JSON, form or multipart body the gateway reads into memory: a larger one answers 400 (E2: no 413). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Largest raw upload (application/octet-stream), counted as it streams but never kept: the contract's 2 GiB. */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/** node:http's own defaults, made explicit: a whole request within 5 minutes, its headers within 1 minute. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/** A body over its limit: answered with 400 and the connection closed, so the rest is never buffered. */
class BodyTooLarge extends BadRequest {}

/**
 * How long a connection whose body was refused is still read (and the bytes dropped) before it is closed. Closing
 * at once, with the client's bytes unread, makes the kernel send a reset that clients report instead of the 400
 * (a "lingering close", as nginx and Apache do).
 */
const LINGER_MS = 1000;

const CORS_ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "Accept", "Prefer", "Last-Event-ID"];
const CORS_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

export async function createGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const contract = opts.contract ?? loadContract(opts.generatedDir ?? DEFAULT_GENERATED_DIR);
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy = contract.policy;
  const clock = opts.clock ?? systemClock;
  const sink = opts.log === undefined ? consoleSink : opts.log;
  const fileKeys = opts.keysFile ? loadKeysFile(opts.keysFile, policy) : [];
  const keys = new KeyStore([...demoKeys(policy), ...fileKeys, ...(opts.extraKeys ?? [])]);
  const apiKeyScheme = Object.values<Json>(contract.doc.components?.securitySchemes ?? {}).find((s) => s.type === "apiKey" && s.in === "header");
  const auth = new Authenticator({ keys, policy, clock, secret: opts.jwtSecret ?? jwtSecretFromEnv(), apiKeyHeader: apiKeyScheme?.name ?? "X-API-Key" });
  const limiter = new RateLimiter(policy, clock);
  const validator = new RequestValidator(contract);
  // Loading Prism (it dereferences the whole contract) is most of the start-up time, so it happens while the
  // gateway already listens; requests that need it wait for it.
  const prismReady = PrismBackend.create(contract.jsonPath);
  prismReady.catch(() => {}); // reported through `ready` and to the requests that wait for it
  /** Prism once loaded: a request with a cached answer then needs no turn of the event loop. */
  let prismLoaded: PrismBackend | null = null;
  void prismReady.then((p) => (prismLoaded = p), () => {});
  const ready = prismReady.then((p) => {
    if (opts.warm) void validator.warmInBackground();
    return { operations: p.operations };
  });
  const scripts = new EventScripts(contract);
  const intervalMs = opts.streamIntervalMs ?? 400;
  const webhooks = new Webhooks(contract, {
    clock,
    deliveryDelayMs: opts.webhookDelayMs ?? 500,
    log: (d) => sink?.(`${new Date(clock.now()).toISOString()} webhook ${d.type} → ${redact(d.url)} ${d.status ?? d.error} ${d.ms.toFixed(1)}ms ${d.hook}`),
  });
  const startedAt = clock.now();
  const defaultCategory = policy.categories.find((c) => c.default)!;
  const anonymousPlan = Object.entries(policy.plans).sort(([, a], [, b]) => a.requests_per_minute - b.requests_per_minute)[0]![0];
  const swaggerHtml = Buffer.from(swaggerPage(contract.doc));
  const swaggerHeaderCsp = swaggerCsp(contract.doc, { header: true });
  // "Try it out" calls the origin that serves the page: this mock.
  const swaggerInit = Buffer.from(swaggerInitJs());
  const assetsPrefix = `/${SWAGGER_ASSETS_DIR}/`;
  const sseOps = new Set(contract.router.routes.filter((r) => r.op.responses?.[String(r.successCode)]?.content?.["text/event-stream"]));

  let draining = false;
  const streams = new Set<AbortController>();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const upgradeHeaders = new WeakMap<http.IncomingMessage, Record<string, string>>();
  wss.on("headers", (headers, req) => {
    for (const [k, v] of Object.entries(upgradeHeaders.get(req) ?? {})) headers.push(`${k}: ${v}`);
  });

  const limitedPrefixes = contract.rateLimitedPrefixes.map((prefix) => [prefix, prefix + "/"] as const);
  /** Loops rather than `.some(closure)`: on every request (see limiter.ts on closures under tsx). */
  function isLimitedPath(p: string): boolean {
    for (const [prefix, under] of limitedPrefixes) if (p === prefix || p.startsWith(under)) return true;
    return false;
  }
  const log = (method: string, url: string, status: number, t0: number, workspace: string | null) =>
    sink?.(formatRequestLine({ method, url, status, ms: performance.now() - t0, workspace }, new Date(clock.now())));

  function rateHeaders(d: Decision): Record<string, string> {
    const h = policy.headers;
    return {
      [h.limit]: String(d.limit),
      [h.remaining]: String(d.remaining),
      [h.reset]: String(d.reset),
      [h.daily_limit]: String(d.dailyLimit),
      [h.daily_remaining]: String(d.dailyRemaining),
    };
  }

  function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
    return { status, headers: { "Content-Type": "application/json", ...headers }, body: Buffer.from(JSON.stringify(value)) };
  }

  function tooMany(d: Decision): Reply {
    const daily = d.exceeded === "daily";
    const e = daily ? policy.errors.daily : policy.errors.minute;
    const limit = daily ? d.dailyLimit : d.limit;
    return json(
      429,
      {
        detail: daily ? `Daily limit of ${limit} requests exceeded.` : `Rate limit of ${limit} requests per minute exceeded.`,
        error: e.error,
        limit,
        window: e.window,
        retry_after: d.retryAfter,
      },
      { ...rateHeaders(d), [policy.headers.retry_after]: String(d.retryAfter) },
    );
  }

  /** Authenticates, counts, checks the workspace and the route, validates parameters. */
  async function admit(req: http.IncomingMessage, pathname: string, query: URLSearchParams, ctx: { workspace: string | null }): Promise<Admission> {
    const method = req.method ?? "GET";
    const match = contract.router.match(method, pathname);
    const route = match.kind === "ok" ? match.route : null;
    const category: CategoryRule = route?.category ?? defaultCategory;
    const result = await auth.authenticate(req.headersDistinct, query, route?.tokenQuery ?? null);
    if (!result.ok) {
      const anon: Subject = { bucket: `anonymous:${req.socket.remoteAddress ?? "?"}`, plan: anonymousPlan };
      const d = limiter.take(anon, category);
      return { ok: false, reply: d.allowed ? json(401, { detail: result.detail, error: result.error }, { ...rateHeaders(d), "WWW-Authenticate": result.challenge }) : tooMany(d) };
    }
    const principal = result.principal;
    ctx.workspace = principal.workspaceId;
    const d = limiter.take({ bucket: principal.workspaceId, plan: principal.plan, key: principal.key }, category);
    const rate = rateHeaders(d);
    if (!d.allowed) return { ok: false, reply: tooMany(d) };
    if (principal.frozen) return { ok: false, reply: json(403, { detail: MESSAGES.frozen, error: "workspace_frozen" }, rate) };
    if (match.kind === "none") return { ok: false, reply: json(404, { detail: `No operation matches ${method} ${redact(pathname)}.` }, rate) };
    if (match.kind === "method") {
      return { ok: false, reply: json(405, { detail: `${method} is not allowed on ${redact(pathname)}; use ${match.allow.join(", ")}.` }, { ...rate, Allow: match.allow.join(", ") }) };
    }
    const issues = validator.checkParams(match.route, match.params, query, req.headers);
    if (issues.length) return { ok: false, reply: json(422, { detail: issues }, rate) };
    const preferHeader = req.headers.prefer;
    return {
      ok: true,
      a: { route: match.route, params: match.params, principal, rate, prefer: parsePrefer(Array.isArray(preferHeader) ? preferHeader.join(",") : preferHeader, query) },
    };
  }

  function send(res: http.ServerResponse, r: Reply): void {
    if (draining) r.headers.Connection = "close";
    if (r.body) r.headers["Content-Length"] = String(r.body.length);
    // The CORS headers and the answer's own, as one flat list: the fastest form writeHead takes (merging objects
    // with a spread, or res.setHeader before writeHead, costs more than the rest of the answer).
    const head = [...corsHead];
    for (const name in r.headers) head.push(name, r.headers[name]!);
    res.writeHead(r.status, head);
    res.end(r.body ?? undefined);
  }

  function fromAnswer(a: MockAnswer, rate: Record<string, string>): Reply {
    const headers: Record<string, string> = { ...rate };
    if (a.contentType) headers["Content-Type"] = a.contentType;
    // A 429 asked for with Prefer: its Retry-After agrees with the example's retry_after.
    const retry = (a.value as { retry_after?: unknown } | null)?.retry_after;
    if (a.status === 429) headers[policy.headers.retry_after] = String(typeof retry === "number" ? retry : 60);
    return { status: a.status, headers, body: a.body };
  }

  function health(): Reply {
    const body = {
      status: draining ? "down" : "ok",
      service: "gateway",
      uptime_seconds: Math.max(0, Math.floor((clock.now() - startedAt) / 1000)),
      checked_at: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    return json(draining ? 503 : 200, body, { "Cache-Control": "no-store" });
  }

  /** The gateway's own unauthenticated paths; null when the path is not one of them. */
  function ownPath(method: string, pathname: string): Reply | null {
    if (method !== "GET" && method !== "HEAD") return null;
    switch (pathname) {
      case "/health":
      case "/healthz":
        return health();
      case "/openapi.yaml":
        return { status: 200, headers: { "Content-Type": "application/yaml; charset=utf-8", "Cache-Control": "no-cache" }, body: contract.yamlBytes };
      case "/swagger.html":
        return { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": swaggerHeaderCsp }, body: swaggerHtml };
      case "/":
        return { status: 302, headers: { Location: "/swagger.html" }, body: null };
    }
    if (pathname.startsWith(assetsPrefix)) {
      const name = pathname.slice(assetsPrefix.length);
      if (name === SWAGGER_INIT_FILE) return { status: 200, headers: { "Content-Type": "text/javascript; charset=utf-8" }, body: swaggerInit };
      const asset = readSwaggerAssetCached(name);
      if (asset) return { status: 200, headers: { "Content-Type": asset.contentType, "Cache-Control": "public, max-age=3600" }, body: asset.body };
    }
    return null;
  }

  const assetCache = new Map<string, ReturnType<typeof readSwaggerAsset>>();
  function readSwaggerAssetCached(name: string) {
    if (!assetCache.has(name)) assetCache.set(name, readSwaggerAsset(name));
    return assetCache.get(name);
  }

  // On every answer, with the answer's own headers (see send).
  const corsHeaders = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Object.values(policy.headers).join(", ") };
  const corsHead = Object.entries(corsHeaders).flat();

  function preflight(req: http.IncomingMessage): Reply {
    const requested = String(req.headers["access-control-request-headers"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const known = new Set(CORS_ALLOW_HEADERS.map((h) => h.toLowerCase()));
    const allow = [...CORS_ALLOW_HEADERS, ...requested.filter((h) => !known.has(h.toLowerCase()))];
    return {
      status: 204,
      headers: { "Access-Control-Allow-Methods": CORS_METHODS, "Access-Control-Allow-Headers": allow.join(", "), "Access-Control-Max-Age": "600" },
      body: null,
    };
  }

  /**
   * Reads a request body, keeping the bytes only when `keep` (bodies the gateway parses). A body over `limit` is
   * refused by its Content-Length before anything is read, or as soon as the bytes counted pass it; reading then
   * stops (the 400 closes the connection), so no more than `limit` bytes are ever held.
   */
  function readBody(req: http.IncomingMessage, keep: boolean, limit: number): Promise<Buffer> {
    const tooLarge = () =>
      new BodyTooLarge(`Request body is larger than the mock accepts (${limit % 1024 ** 2 === 0 ? `${limit / 1024 ** 2} MiB` : `${limit} bytes`}).`);
    if (Number(req.headers["content-length"]) > limit) return Promise.reject(tooLarge());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        req.off("data", onData).off("end", onEnd).off("error", reject);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          done();
          req.pause();
          return reject(tooLarge());
        }
        if (keep) chunks.push(chunk);
      };
      const onEnd = () => {
        done();
        resolve(keep ? Buffer.concat(chunks) : Buffer.alloc(size > 0 ? 1 : 0));
      };
      req.on("data", onData).on("end", onEnd).on("error", reject);
    });
  }

  /** Sends `r` (a `Connection: close` answer to a request whose body is still arriving), then closes lingering. */
  function refuseAndClose(req: http.IncomingMessage, res: http.ServerResponse, r: Reply): void {
    const socket = req.socket;
    // node:http calls destroySoon() once the answer is written; end our side, drop what still comes, close later.
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    req.on("error", () => {}).resume();
    send(res, r);
  }

  function hasBody(req: http.IncomingMessage): boolean {
    return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const t0 = performance.now();
    const method = req.method ?? "GET";
    const rawUrl = req.url ?? "/";
    const qi = rawUrl.indexOf("?");
    const pathname = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    const ctx = { workspace: null as string | null };
    // 499 (as nginx logs it): the client closed the connection before an answer was sent.
    if (sink) res.on("close", () => log(method, rawUrl, res.headersSent ? res.statusCode : 499, t0, ctx.workspace));

    if (req.httpVersion === "1.1" && req.headers.host === undefined) {
      return send(res, json(400, { detail: "Malformed HTTP request: an HTTP/1.1 request needs a Host header." }, { Connection: "close" }));
    }
    if (method === "OPTIONS" && req.headers["access-control-request-method"]) return send(res, preflight(req));
    const own = ownPath(method, pathname);
    if (own) {
      if (method === "HEAD") own.body = null;
      return send(res, own);
    }
    if (!isLimitedPath(pathname)) return send(res, json(404, { detail: `Not found: ${redact(pathname)}. The API lives under ${contract.rateLimitedPrefixes.join(", ")}; see /swagger.html.` }));

    const query = new URLSearchParams(qi < 0 ? "" : rawUrl.slice(qi + 1));
    const adm = await admit(req, pathname, query, ctx);
    if (!adm.ok) return send(res, adm.reply);
    const { route, rate, prefer } = adm.a;
    if (prefer.code !== undefined || prefer.example !== undefined || prefer.badCode !== undefined) {
      const problem = preferProblem(route, prefer, contract.deref);
      if (problem) return send(res, json(400, { detail: problem }, rate));
    }
    const gatewayAnswers = prefer.code === undefined || prefer.code === route.successCode;

    if (route.successCode === 101 && gatewayAnswers) {
      return send(res, json(426, { detail: `${route.template} is a WebSocket endpoint: connect with ws:// (wss:// in production).` }, { ...rate, Upgrade: "websocket" }));
    }
    if (sseOps.has(route) && gatewayAnswers && prefer.example === undefined) return streamSse(req, res, adm.a);

    // The body: parsed and validated against the operation's request body.
    let value: unknown;
    if (validator.compiled(route).body) {
      const ct = req.headers["content-type"];
      const structured = /json|x-www-form-urlencoded|multipart\/form-data/i.test(ct ?? "");
      const limit = !structured ? MAX_UPLOAD_BYTES : isJsonMediaType(ct) ? Math.min(maxBodyBytes, validator.maxJsonBodyBytes) : maxBodyBytes;
      try {
        const raw = hasBody(req) ? await readBody(req, structured, limit) : Buffer.alloc(0);
        const checked = await validator.checkBody(route, ct, raw);
        if (checked.issues.length) return send(res, json(422, { detail: checked.issues }, rate));
        value = checked.value;
      } catch (e) {
        if (e instanceof BodyTooLarge) return refuseAndClose(req, res, json(400, { detail: e.message }, { ...rate, Connection: "close" }));
        if (e instanceof BadRequest) return send(res, json(400, { detail: e.message }, rate));
        throw e;
      }
    }

    const webhookReply = gatewayAnswers ? webhookHandler(route, adm.a, value) : null;
    if (webhookReply) return send(res, webhookReply);

    const prism = prismLoaded ?? (await prismReady);
    const request = { path: pathname, query, accept: req.headers.accept };
    const answer = prism.cached(route, request, prefer) ?? (await prism.answer(route, request, prefer));
    return send(res, fromAnswer(answer, rate));
  }

  /** Webhook operations the mock implements for real (registration, test delivery, reading and deleting them). */
  function webhookHandler(route: Route, a: Admitted, body: unknown): Reply | null {
    const ws = a.principal.workspaceId;
    switch (route.operationId) {
      case "createWebhook": {
        // The body has passed the contract's validation of WebhookCreate by now.
        const hook = webhooks.register(ws, body as components["schemas"]["WebhookCreate"]);
        return json(route.successCode, hook, { ...a.rate, ...webhooks.notice(hook) });
      }
      case "testWebhook": {
        const hook = webhooks.get(a.params.webhook_id ?? "", ws);
        if (!hook) return null; // an id the mock never issued: the contract's example answers
        return json(route.successCode, webhooks.test(hook, (body as { event_type: string }).event_type), { ...a.rate, ...webhooks.notice(hook) });
      }
      case "getWebhook": {
        const hook = webhooks.get(a.params.webhook_id ?? "", ws);
        return hook ? json(route.successCode, publicView(hook), a.rate) : null;
      }
      case "deleteWebhook": {
        if (!webhooks.remove(a.params.webhook_id ?? "", ws)) return null;
        return { status: route.successCode, headers: a.rate, body: null };
      }
    }
    return null;
  }

  function streamSse(req: http.IncomingMessage, res: http.ServerResponse, a: Admitted): void {
    const analysisId = Object.values(a.params)[0] ?? newId("anl");
    const lastEventId = req.headers["last-event-id"];
    const events = resumeAfter(scripts.analysisEvents(analysisId, a.principal.workspaceId), typeof lastEventId === "string" ? lastEventId : null);
    res.writeHead(200, {
      ...corsHeaders,
      ...a.rate,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      // No Connection header: node:http manages it. A forced `keep-alive` contradicted a client's `Connection:
      // close`, whose response is then delimited by closing the connection, and the client reused the socket.
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    const ac = new AbortController();
    streams.add(ac);
    res.on("close", () => {
      ac.abort();
      streams.delete(ac);
    });
    void play(events, intervalMs, (e) => res.write(sseMessage(e)), ac.signal).then(() => {
      streams.delete(ac);
      res.end();
    });
  }

  async function handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const t0 = performance.now();
    const rawUrl = req.url ?? "/";
    const qi = rawUrl.indexOf("?");
    const pathname = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    const query = new URLSearchParams(qi < 0 ? "" : rawUrl.slice(qi + 1));
    const ctx = { workspace: null as string | null };
    const reject = (r: Reply) => {
      writeRaw(socket, r);
      log("GET", rawUrl, r.status, t0, ctx.workspace);
    };
    if (draining) return reject(json(503, { detail: "The gateway is shutting down." }));
    if (!isLimitedPath(pathname)) return reject(json(404, { detail: `Not found: ${redact(pathname)}.` }));
    const adm = await admit(req, pathname, query, ctx);
    if (!adm.ok) return reject(adm.reply);
    const { route, rate, principal, params } = adm.a;
    if (route.successCode !== 101) return reject(json(400, { detail: `${route.template} does not accept WebSocket connections.` }, rate));
    upgradeHeaders.set(req, rate);
    wss.handleUpgrade(req, socket, head, (ws) => {
      log("GET", rawUrl, 101, t0, ctx.workspace);
      sockets.add(ws);
      ws.on("close", () => sockets.delete(ws));
      ws.on("error", () => {}); // e.g. a frame over maxPayload: ws itself closes with 1009
      const analysisId = Object.values(params)[0];
      if (analysisId) {
        runAnalysisEvents(ws, scripts.analysisEvents(analysisId, principal.workspaceId), query.get("last_event_id"), intervalMs);
      } else {
        runLiveSession(ws, {
          scripts,
          analysisId: newId("anl", clock.now()),
          workspaceId: principal.workspaceId,
          mediaType: query.get("media_type") ?? "audio",
          encoding: query.get("encoding") ?? "pcm_s16le",
          intervalMs,
          idleTimeoutMs: opts.wsIdleTimeoutMs ?? 30_000,
        });
      }
    });
  }

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((e: Error) => {
      // A client that went away mid-request is no internal error: its request line (499) records it.
      if (req.destroyed && !req.complete) return;
      sink?.(`${new Date(clock.now()).toISOString()} internal error on ${req.method} ${redact(req.url ?? "")}: ${redact(e.stack ?? e.message)}`);
      if (!res.headersSent) send(res, json(500, { detail: "Internal server error. Retry with exponential backoff." }));
      else res.destroy();
    });
  };
  // requireHostHeader off: a request without Host gets its 400 from `handle`, with the contract's error body.
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const server = http.createServer(
    {
      requireHostHeader: false,
      requestTimeout,
      headersTimeout: Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout),
      // How often node:http looks for requests over their time (its default, 30 s, is coarser than a short limit).
      connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(requestTimeout / 4))),
    },
    onRequest,
  );
  // An Expect other than 100-continue is ignored (RFC 9110 §10.1.1 allows it) rather than answered with
  // node:http's bare 417, which the contract does not declare.
  server.on("checkExpectation", onRequest);
  // What node:http cannot parse (bad request line, header names or lengths, headers over 16 KiB) never reaches
  // `handle`; it is refused here, still with the contract's error body, and the connection is closed.
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const responding = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage?.headersSent;
    if (err.code === "ECONNRESET" || !socket.writable || responding) return void socket.destroy();
    const detail =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "The request was not received in time."
        : err.code === "HPE_HEADER_OVERFLOW"
          ? "The request headers are larger than the gateway accepts (16 KiB)."
          : "Malformed HTTP request.";
    writeRaw(socket, json(err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400, { detail }));
  });
  // CONNECT would otherwise get its connection closed without an answer: the gateway is no proxy.
  server.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    writeRaw(socket, json(405, { detail: `${req.method} is not allowed: the gateway is not a proxy.` }));
  });
  server.on("upgrade", (req, socket, head) => {
    socket.on("error", () => socket.destroy());
    handleUpgrade(req, socket, head).catch(() => writeRaw(socket, json(500, { detail: "Internal server error." })));
  });
  const pruner = setInterval(() => limiter.prune(), 60_000);
  pruner.unref();

  const gateway: Gateway = {
    server,
    contract,
    keys,
    limiter,
    ready,
    url: "",
    listen(port = 4010, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const addr = server.address();
          const h = typeof addr === "object" && addr ? addr.address : host;
          const p = typeof addr === "object" && addr ? addr.port : port;
          gateway.url = `http://${h.includes(":") ? `[${h}]` : h}:${p}`;
          resolve(gateway.url);
        });
      });
    },
    async close() {
      draining = true;
      clearInterval(pruner);
      for (const ac of streams) ac.abort();
      for (const ws of sockets) ws.close(1001, "server shutting down");
      await webhooks.close();
      await new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Whatever is still open after a moment (a slow client, a socket mid-handshake) is cut.
        setTimeout(() => {
          server.closeAllConnections();
          for (const ws of sockets) ws.terminate();
        }, 1000).unref();
      });
      wss.close();
    },
  };
  return gateway;
}

/** Answers a request that asked for an upgrade with a plain HTTP response, then closes the socket. */
function writeRaw(socket: Duplex, r: Reply): void {
  if (socket.destroyed) return;
  const body = r.body ?? Buffer.alloc(0);
  const lines = [`HTTP/1.1 ${r.status} ${http.STATUS_CODES[r.status] ?? ""}`];
  for (const [k, v] of Object.entries({ ...r.headers, "Content-Length": String(body.length), Connection: "close" })) lines.push(`${k}: ${v}`);
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n"), body]));
}

