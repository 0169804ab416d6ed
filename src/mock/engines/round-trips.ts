// Round trips an engine makes to its server (a PostgreSQL query, a Redis command) and how many failed: plain
// counters the node home's /metrics reads (homes/node/observability/metrics.ts). No metrics library here: an engine only counts.

export class RoundTrips {
  calls = 0;
  errors = 0;

  /** Counts one round trip, and its failure if `result` rejects (a pg query, an ioredis command: both promises). */
  count<T>(result: T): T {
    this.calls++;
    if (result instanceof Promise) result.catch(() => this.errors++);
    return result;
  }
}
