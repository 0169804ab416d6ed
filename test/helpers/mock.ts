// Shared set-up of the mock tests: one loaded contract, gateways on free ports with an injected clock, and
// small HTTP/WebSocket helpers.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import http from "node:http";
import { WebSocket } from "ws";
import { createGateway, loadContract, type Gateway, type GatewayOptions, type KeyRecord } from "../../src/mock/index.js";
import { systemClock, type Cancel, type Clock } from "../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../src/mock/core/clock/simulated.js";
import { componentSchemaId, createContractAjv } from "../../src/mock/core/contract/validation.js";

export const contract = loadContract();
export const policy = contract.policy;

/** Where the tests' clocks start: 12:00:30 UTC, mid-minute and mid-day. */
export const T0 = Date.UTC(2026, 10, 21, 12, 0, 30);

/**
 * A clock whose time the test sets by hand, under the gateway's simulated one (core/clock/), while its timers are
 * real: a gateway's streams and lifecycles run on their own, with the time the test chose (each minute's rate limit
 * and each expiry where the test puts it); a timer that fires moves the time to its due time if it stood before. A test that wants the timers by hand too takes startStateful's clock, a
 * SimulatedClock held paused. Not a third clock of the mock: a test's, handing on real timers.
 */
export class ManualClock implements Clock {
  t: number;
  constructor(start = T0) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
  /**
   * A real timer; when it fires, the time has come at least to its due time (a clock never runs a task before the
   * task's time), so the gateway's simulated clock over this one stays equal to it and `set(t)` means t there too.
   */
  after(ms: number, task: () => void): Cancel {
    const due = this.t + Math.max(0, ms);
    return systemClock.after(ms, () => {
      if (this.t < due) this.t = due;
      task();
    });
  }
}

/** What a test gateway's clock lets the test do: read it, and move it by hand. */
export type TestClock = Clock & { advance(ms: number): void; set(ms: number): void };

export interface TestGateway {
  gateway: Gateway;
  url: string;
  clock: TestClock;
  logs: string[];
  close(): Promise<void>;
}

/** Starts a gateway on 127.0.0.1 and a free port, quiet, with fast streams, collecting its log lines. */
export async function startGateway(opts: GatewayOptions & { clock?: TestClock } = {}): Promise<TestGateway> {
  const clock = opts.clock ?? new ManualClock();
  const logs: string[] = [];
  // The suite registers loopback receivers (startReceiver), so it passes --allow-loopback-webhooks; a test of the
  // refusal passes `allowLoopbackWebhooks: false`.
  const gateway = await createGateway({ contract, clock, log: (l) => logs.push(l), streamIntervalMs: 0, webhookDelayMs: 0, allowLoopbackWebhooks: true, ...opts });
  const url = await gateway.listen(0, "127.0.0.1");
  return { gateway, url, clock, logs, close: () => gateway.close() };
}

let keySeq = 0;
/** A key of its own workspace, so a test's counting is not disturbed by another's. */
export function freshKey(plan: string, extra: Partial<KeyRecord> = {}): KeyRecord {
  keySeq++;
  const n = `${process.pid}x${keySeq}`.replace(/[^0-9A-Za-z]/g, "x");
  return { key: `pk_test_t${n}_${plan}`, workspace_id: `ws_Test${n}`.padEnd(12, "0"), plan, ...extra };
}

export function apiKey(key: string): Record<string, string> {
  return { "X-API-Key": key };
}

export async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** The five X-RateLimit-* headers of a response, as numbers (NaN when missing). */
export function rateHeaders(h: Headers) {
  const n = (name: string) => Number(h.get(name) ?? NaN);
  const p = policy.headers;
  return { limit: n(p.limit), remaining: n(p.remaining), reset: n(p.reset), dailyLimit: n(p.daily_limit), dailyRemaining: n(p.daily_remaining) };
}

/** Reads a whole SSE response into its messages, with eventsource-parser. */
export async function readSse(res: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return events;
}

export interface WsResult {
  messages: any[];
  code: number;
  reason: string;
  upgradeHeaders: Record<string, string | string[] | undefined>;
}

/**
 * Opens a WebSocket, runs `onMessage` on each JSON message (to send control frames), and resolves when the server
 * closes it. Rejects with the HTTP status when the upgrade is refused.
 */
export function wsSession(url: string, opts: { headers?: Record<string, string>; onOpen?: (ws: WebSocket) => void; onMessage?: (m: any, ws: WebSocket) => void } = {}): Promise<WsResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: opts.headers });
    const messages: any[] = [];
    let upgradeHeaders: WsResult["upgradeHeaders"] = {};
    ws.on("upgrade", (res) => (upgradeHeaders = res.headers));
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c));
      res.on("end", () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body || "null"), headers: res.headers })));
    });
    ws.on("open", () => opts.onOpen?.(ws));
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const m = JSON.parse(data.toString());
      messages.push(m);
      opts.onMessage?.(m, ws);
    });
    ws.on("close", (code, reason) => resolve({ messages, code, reason: reason.toString(), upgradeHeaders }));
    ws.on("error", (e) => {
      if (ws.readyState !== ws.CLOSED) reject(e);
    });
  });
}

export const ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";

const ajv = createContractAjv(contract, false);
/** Asserts `value` is valid against the contract's component schema `name`; returns the errors otherwise. */
export function schemaErrors(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(componentSchemaId(name));
  if (!validate) throw new Error(`no schema ${name} in the contract`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

export interface Delivery {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

/** A webhook receiver on a free loopback port that records each delivery and answers `status`. */
export async function startReceiver(status = 200) {
  const deliveries: Delivery[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw.toString("utf8")) });
      res.writeHead(status).end();
      for (const w of waiters.filter((w) => deliveries.length >= w.n)) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/analysis-events`,
    deliveries,
    /** Resolves once `n` deliveries have arrived. */
    received: (n: number) => new Promise<void>((resolve) => (deliveries.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Time between two processing steps in the stateful tests' gateways (moved by hand with `clock.advance`). */
export const STEP_MS = 100;

/**
 * A gateway whose stored resources move only when the test advances its clock: no sleeping. The clock is a
 * SimulatedClock held paused at T0, under the gateway's own simulated clock, so `/__mock/clock` still works above it.
 */
export async function startStateful(opts: Omit<GatewayOptions, "clock"> = {}): Promise<TestGateway & { clock: SimulatedClock }> {
  const clock = new SimulatedClock(systemClock, { frozenAt: T0 });
  const g = await startGateway({ clock, stepMs: STEP_MS, ...opts });
  return { ...g, clock };
}

/** A JSON call with a demo key (`pk_test_demo_pro` unless `key` says otherwise). */
export async function call(base: string, method: string, path: string, o: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { "X-API-Key": o.key ?? "pk_test_demo_pro", ...o.headers };
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  return getJson(base + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
}
