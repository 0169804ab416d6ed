// Proxy mode (--upstream): what its stages share, made once per gateway: the upstream and its connection pool, the
// judge and the violation list, and the open WebSocket tunnels and event streams (cut when the gateway closes).
import type http from "node:http";
import type { Duplex } from "node:stream";
import { json, type Reply } from "../core/http/reply.js";
import type { LogSink } from "../core/pipeline/log.js";
import type { Services } from "../core/pipeline/services.js";
import { Judge } from "./judge.js";
import { relayUnparsed } from "./unparsed.js";
import { parseUpstream, upstreamAgent, upstreamRequest, type Upstream } from "./upstream.js";
import { DEFAULT_MAX_VIOLATIONS, ViolationList } from "./violations.js";

export interface ProxyOptions {
  /** The backend's base URL (http or https). */
  upstream: string;
  /** Where violation lines go (default: the gateway's log). */
  violationLog?: LogSink | null;
  /** Time the upstream has to start answering, ms (default 300 000); then 504. */
  upstreamTimeoutMs?: number;
  /** Bytes of each body kept for judging (default: the `proxyKeptBytes` limit, 8 MiB). */
  maxValidatedBytes?: number;
  /** Violations kept for GET /__mock/violations (default 1000). */
  maxViolations?: number;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 300_000;
/** Above the contract's largest JSON request (7 MiB, decision G13), as the verifier's body cap. */
export const DEFAULT_MAX_VALIDATED_BYTES = 8 * 1024 * 1024;

export class Proxy {
  readonly upstream: Upstream;
  readonly violations: ViolationList;
  readonly judge: Judge;
  readonly timeoutMs: number;
  private readonly agent: http.Agent;
  /** Exchanges crossing now (capped: the `proxyExchanges` limit, stage `proxyCapacity`). */
  crossing = 0;
  /** What the gateway cuts when it closes: WebSocket tunnels' sockets and open streamed answers. */
  private readonly open = new Set<Duplex | http.ServerResponse>();

  constructor(s: Services, o: ProxyOptions) {
    this.upstream = parseUpstream(o.upstream);
    this.agent = upstreamAgent(this.upstream);
    const sink = o.violationLog === undefined ? s.sink : o.violationLog;
    const now = () => s.clock.now();
    this.violations = new ViolationList(now, sink, o.maxViolations ?? DEFAULT_MAX_VIOLATIONS);
    this.judge = new Judge(s.contract, this.violations, sink, now, o.maxValidatedBytes ?? s.settings.limits.proxyKeptBytes);
    this.timeoutMs = o.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  }

  /** A request to the upstream for `target` (path and query as received), with the headers given. */
  request(method: string, target: string, headers: string[]): http.ClientRequest {
    return upstreamRequest(this.upstream, this.agent, method, target, headers);
  }

  /** The gateway's own answer when the upstream gave none: 504 after `timeoutMs` without an answer, else 502. */
  failure(timedOut: boolean, e: NodeJS.ErrnoException): { status: number; message: string; reply: Reply } {
    const status = timedOut ? 504 : 502;
    const message = timedOut ? `the upstream did not start answering within ${this.timeoutMs / 1000} s` : `the upstream did not answer: ${e.code ?? e.message}`;
    return { status, message, reply: json(status, { detail: `${message[0]!.toUpperCase()}${message.slice(1)} (${this.upstream.url}).` }) };
  }

  /** The 502 for an answer whose status line cannot be sent on (`why` says what is wrong), listed as a violation. */
  invalidAnswer(why: string): { status: number; message: string; reply: Reply } {
    const message = `the upstream answered an invalid status line: ${why}`;
    return { status: 502, message, reply: json(502, { detail: `${message[0]!.toUpperCase()}${message.slice(1)} (${this.upstream.url}).` }) };
  }

  /** A request node:http could not parse, relayed to the upstream as bytes (unparsed.ts); false when it cannot be. */
  relayUnparsed(socket: Duplex, raw: Buffer | undefined, refuse: () => void): boolean {
    const relayed = relayUnparsed(this.upstream, socket, raw, this.timeoutMs, refuse);
    if (relayed) this.track(socket);
    return relayed;
  }

  /** Keeps `x` to be cut when the gateway closes, until it closes by itself. */
  track(x: Duplex | http.ServerResponse): void {
    this.open.add(x);
    x.once("close", () => this.open.delete(x));
  }

  /** Cuts the tunnels and event streams still open (as the mock's own are cut when it drains). */
  cutStreams(): void {
    for (const x of this.open) x.destroy();
  }

  /** Closes the upstream connections, once the gateway has drained (plain answers had their time to finish). */
  close(): void {
    this.agent.destroy();
  }
}
