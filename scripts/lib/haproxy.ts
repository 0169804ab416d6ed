// HAProxy in front of a sandbox's replicas (docs/sandbox.md): round-robin (or one replica per API key, `sticky`), each replica checked on GET /health every
// 500 ms and taken out after two failures (a replica draining or cut off from Redis answers 503 there), put back
// after one success. Long tunnel and server timeouts so event streams and WebSocket sessions stay open.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { stopChild, waitForPort } from "./engines.js";

export interface Balancer {
  url: string;
  port: number;
  pid: number;
  config: string;
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
    "frontend api",
    `  bind ${bind}:${port}`,
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
  await allUp(socket, replicas.length, () => out);
  return {
    url: `http://${bind}:${port}`,
    port,
    pid: child.pid!,
    config,
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `show servers state` on the runtime socket: the operational state of each server (2 = up). */
function serverStates(socket: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    let text = "";
    const c = net.connect(socket, () => c.write("show servers state replicas\n"));
    c.on("data", (d: Buffer) => (text += d));
    c.on("end", () => resolve(text.split("\n").filter((l) => /^\d+ replicas /.test(l)).map((l) => Number(l.split(" ")[5]))));
    c.on("error", reject);
  });
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
