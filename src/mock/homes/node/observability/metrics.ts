// GET /metrics: the gateway's figures in Prometheus's text format (prom-client), one registry per gateway. Requests
// by operation and status and their latency (from each request's context once it is served), the round trips and
// failures of PostgreSQL and Redis (counted by the engines: engines/round-trips.ts), the webhook deliveries queued
// in PostgreSQL and not yet made (the outbox's depth), and the open event streams.
import type http from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RoundTrips } from "../../../engines/round-trips.js";
import type { Served } from "../../../core/pipeline/serve.js";
import type { Services } from "../../../core/pipeline/services.js";

export const METRICS_PATH = "/metrics";

export interface MetricsSources {
  postgres?: () => RoundTrips | undefined;
  redis?: () => RoundTrips | undefined;
  /** Deliveries queued and not yet made (one count query per scrape). */
  queueDepth?: () => Promise<number> | undefined;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: "avt_http_requests_total", help: "Requests answered, by the contract's operationId (`none`: no operation matched) and status.", labelNames: ["operation", "status"], registers: [this.registry] });
  private readonly latency = new Histogram({ name: "avt_http_request_duration_seconds", help: "Time from a request's arrival to its answer, by operation.", labelNames: ["operation"], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers: [this.registry] });

  constructor(s: Services, src: MetricsSources) {
    const r = [this.registry];
    const trips = (name: string, engine: string, get?: () => RoundTrips | undefined) => {
      new Counter({ name: `avt_${engine}_round_trips_total`, help: `${name} round trips (queries or commands) sent.`, registers: r, collect() { this.reset(); this.inc(get?.()?.calls ?? 0); } });
      new Counter({ name: `avt_${engine}_errors_total`, help: `${name} round trips that failed.`, registers: r, collect() { this.reset(); this.inc(get?.()?.errors ?? 0); } });
    };
    trips("PostgreSQL", "postgres", src.postgres);
    trips("Redis", "redis", src.redis);
    new Gauge({ name: "avt_webhook_queue_depth", help: "Webhook deliveries queued in PostgreSQL and not yet made (0 without --state postgres://).", registers: r, async collect() { this.set((await src.queueDepth?.()) ?? 0); } });
    new Gauge({ name: "avt_open_streams", help: "Open event streams (SSE) and WebSocket connections.", registers: r, collect() { this.set(s.live.streams.size + s.live.sockets.size); } });
  }

  /** Counts one served request (serve.ts `Served`). */
  readonly served: Served = (ctx, status) => {
    // The operation is known from matchRoute on (a 503 of the rate limiter has one); `none` before it or without one.
    const operation = ctx.match.kind === "ok" ? ctx.match.route.operationId : "none";
    this.requests.inc({ operation, status: String(status) });
    this.latency.observe({ operation }, (performance.now() - ctx.t0) / 1000);
  };

  /** Answers GET /metrics; false when the request is not one. */
  answer(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== METRICS_PATH) return false;
    this.registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" }).end(text),
      (e: Error) => res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ detail: `Metrics failed: ${e.message}` })),
    );
    return true;
  }
}
