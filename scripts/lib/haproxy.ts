// HAProxy in front of a sandbox's replicas (docs/sandbox.md): round-robin, each replica checked on GET /health every
// 500 ms and taken out after two failures (a replica draining or cut off from Redis answers 503 there), put back
// after one success. Long tunnel and server timeouts so event streams and WebSocket sessions stay open.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
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

/** The configuration for `replicas` (host:port each), listening on 127.0.0.1:`port` (or `bind`). */
export function haproxyConfig(replicas: readonly string[], port: number, bind = "127.0.0.1"): string {
  return [
    "global",
    "  maxconn 4000", // 2 FDs per connection must fit the open-files limit a test runner gets (often 20,000)
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
    "  balance roundrobin",
    "  option httpchk GET /health",
    "  http-check expect status 200",
    "  retry-on conn-failure empty-response",
    "  retries 2",
    "  option redispatch",
    "  default-server inter 500ms fall 2 rise 1",
    ...replicas.map((r, i) => `  server r${i + 1} ${r} check`),
    "",
  ].join("\n");
}

export async function startHaproxy(replicas: readonly string[], port: number, bind = "127.0.0.1"): Promise<Balancer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-haproxy-"));
  const config = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(config, haproxyConfig(replicas, port, bind));
  // -db: stay in the foreground, so this process owns it and stops it by PID.
  const child: ChildProcess = spawn("haproxy", ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  await waitForPort(port, child, () => out);
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
