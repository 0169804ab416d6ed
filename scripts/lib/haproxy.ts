// HAProxy in front of a sandbox's replicas (docs/sandbox.md): round-robin (or one replica per API key, `sticky`), each replica checked on GET /health every
// 500 ms and taken out after two failures (a replica draining or cut off from Redis answers 503 there), put back
// after one success. Long tunnel and server timeouts so event streams and WebSocket sessions stay open.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { DEPENDENCY_RETRY_AFTER_SECONDS } from "../../src/mock/core/access/rate-answers.js";
import { stopChild, waitForPort } from "./engines.js";

export interface Balancer {
  url: string;
  port: number;
  pid: number;
  config: string;
  /** Sets a replica's state on the runtime socket (`maint`: no new request goes to it; `ready`: back in turn). */
  setState(server: string, state: "ready" | "drain" | "maint"): Promise<void>;
  /** Resolves once every replica passes its checks again. */
  allUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface BalancerOptions {
  bind?: string;
  /**
   * Each API key to one replica (consistent hashing on `X-API-Key`; requests without one round-robin), so a client
   * reads back what it created while records are still each replica's own (docs/sandbox.md).
   */
  sticky?: boolean;
  /** HAProxy's runtime socket (`show servers state`), through which `startHaproxy` waits for every replica to be up. */
  socket?: string;
  /**
   * Health checks: every `interMs` (500), a replica out after `fall` failures (2). A check waits `interMs` for its
   * answer, so a loaded machine (the bench) needs a longer one, or busy replicas are taken out and HAProxy answers 503.
   */
  checks?: { interMs: number; fall: number };
  /** Wait until every replica passes its check (true): a balancer in front of replicas that are all down doesn't. */
  waitForReplicas?: boolean;
}

/** Seconds HAProxy's own 503 asks a client to wait: the gateway's for an unreachable store (decision SB2). */
export const BALANCER_RETRY_AFTER_SECONDS = DEPENDENCY_RETRY_AFTER_SECONDS;

/**
 * The answers HAProxy makes itself, in the contract's error body (`Error`: `detail`, and `error` where a code
 * applies) instead of its HTML pages, each with the request's `X-Request-Id` (decision SB26):
 * - 503: no replica passes its health check (all draining, or all cut off from a store they share): nothing was
 *   done, so `dependency_unavailable` with `Retry-After`;
 * - 502 and 504: a replica failed or timed out mid-request, so the request may or may not have taken effect: the
 *   detail says to retry with the same `Idempotency-Key`.
 */
export const BALANCER_ERRORS: ReadonlyArray<{ status: number; body: { detail: string; error?: string }; retryAfter?: number }> = [
  {
    status: 503,
    body: {
      detail: "No replica of the sandbox can serve right now (each fails its health check, as when a store they share is down). Nothing was done; retry after Retry-After.",
      error: "dependency_unavailable",
    },
    retryAfter: BALANCER_RETRY_AFTER_SECONDS,
  },
  { status: 502, body: { detail: "The replica serving this request stopped answering. It may or may not have taken effect: retry with the same Idempotency-Key." } },
  { status: 504, body: { detail: "The replica serving this request did not answer in time. It may or may not have taken effect: retry with the same Idempotency-Key." } },
];

/** A value in HAProxy's configuration: quoted, with `"` and `\\` escaped and `%` doubled (a log-format string). */
function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/%/g, "%%")}"`;
}

/**
 * Every request gets an `X-Request-Id` at the balancer when it has no valid one (the contract's header: 1 to 128
 * visible ASCII characters), so the balancer's own answers and the replica's carry the same id.
 */
function requestIdLines(): string[] {
  // Kept in a variable too: once the request has gone to a replica, its headers are no longer there to read, and a
  // 502 made then still needs the id.
  return ["  http-request set-header X-Request-Id %[unique-id] unless { req.hdr(X-Request-Id) -m reg ^[!-~]{1,128}$ }", "  http-request set-var(txn.request_id) req.hdr(X-Request-Id)"];
}

function errorLines(): string[] {
  return BALANCER_ERRORS.map(
    (e) =>
      `  http-error status ${e.status} content-type application/json hdr Cache-Control no-store hdr X-Request-Id "%[var(txn.request_id)]"` +
      (e.retryAfter === undefined ? "" : ` hdr Retry-After ${e.retryAfter}`) +
      ` lf-string ${quoted(JSON.stringify(e.body))}`,
  );
}

/** The configuration for `replicas` (host:port each), listening on `bind` (127.0.0.1) and `port`. */
export function haproxyConfig(replicas: readonly string[], port: number, o: BalancerOptions = {}): string {
  const bind = o.bind ?? "127.0.0.1";
  return [
    "global",
    "  maxconn 4000", // 2 FDs per connection must fit the open-files limit a test runner gets (often 20,000)
    ...(o.socket ? [`  stats socket ${o.socket} mode 600 level admin`] : []),
    "defaults",
    "  mode http",
    "  option http-keep-alive",
    "  timeout connect 2s",
    "  timeout client 10m",
    "  timeout server 10m",
    "  timeout tunnel 1h",
    "  timeout http-keep-alive 60s",
    "  unique-id-format req_%[uuid,regsub(-,,g)]",
    ...errorLines(),
    "frontend api",
    `  bind ${bind}:${port}`,
    ...requestIdLines(),
    "  default_backend replicas",
    "backend replicas",
    ...(o.sticky ? ["  balance hdr(X-API-Key)", "  hash-type consistent"] : ["  balance roundrobin"]),
    "  option httpchk GET /health",
    "  http-check expect status 200",
    "  http-response set-header X-Sandbox-Replica %s", // which replica answered (its name in this file)
    "  retry-on conn-failure empty-response",
    "  retries 2",
    // A retried request may go to another replica only where any replica will do: a sticky key stays on its own.
    ...(o.sticky ? [] : ["  option redispatch"]),
    `  default-server inter ${o.checks?.interMs ?? 500}ms fall ${o.checks?.fall ?? 2} rise 1`,
    ...replicas.map((r, i) => `  server r${i + 1} ${r} check`),
    "",
  ].join("\n");
}

export async function startHaproxy(replicas: readonly string[], port: number, o: BalancerOptions = {}): Promise<Balancer> {
  const bind = o.bind ?? "127.0.0.1";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-haproxy-"));
  const config = path.join(dir, "haproxy.cfg");
  const socket = path.join(dir, "admin.sock");
  fs.writeFileSync(config, haproxyConfig(replicas, port, { ...o, socket }));
  // -db: stay in the foreground, so this process owns it and stops it by PID.
  const child: ChildProcess = spawn("haproxy", ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  await waitForPort(port, child, () => out);
  // Listening is not enough: until its first checks have passed a server may still change state, and a hash-based
  // balance (`sticky`) then sends a key's first requests to different replicas.
  if (o.waitForReplicas !== false) await allUp(socket, replicas.length, () => out);
  return {
    url: `http://${bind}:${port}`,
    port,
    pid: child.pid!,
    config,
    async setState(server, state) {
      const answer = await adminCommand(socket, `set server replicas/${server} state ${state}`);
      if (answer.trim()) throw new Error(`HAProxy refused "set server replicas/${server} state ${state}": ${answer.trim()}`);
    },
    allUp: (timeoutMs) => allUp(socket, replicas.length, () => out, timeoutMs),
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command on HAProxy's runtime socket; resolves with its answer. */
function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const c = net.connect(socket, () => c.write(`${command}\n`));
    c.on("data", (d: Buffer) => (text += d));
    c.on("end", () => resolve(text));
    c.on("error", reject);
  });
}

/** `show servers state` on the runtime socket: the operational state of each server (2 = up). */
async function serverStates(socket: string): Promise<number[]> {
  const text = await adminCommand(socket, "show servers state replicas");
  return text.split("\n").filter((l) => /^\d+ replicas /.test(l)).map((l) => Number(l.split(" ")[5]));
}

async function allUp(socket: string, count: number, log: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const states = await serverStates(socket).catch(() => [] as number[]);
    if (states.length === count && states.every((s) => s === 2)) return;
    if (Date.now() > until) throw new Error(`HAProxy's replicas were not all up within ${timeoutMs} ms (states ${states.join(", ")}):\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
