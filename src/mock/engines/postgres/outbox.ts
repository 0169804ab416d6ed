// Webhook deliveries as durable work in PostgreSQL (decision SB23): an outbox. An emitted event's deliveries are
// rows inserted by the transaction that commits the change which emitted them (a lifecycle step's, a request's), so
// a change rolled back queues nothing and a committed one is never lost. Every replica polls the table and claims a
// batch with `FOR UPDATE SKIP LOCKED` (replicas never wait on each other's rows), setting `claimed_until`: a claim
// outlives the replica that made it and expires on its own. A delivery made is deleted; a replica that drains stops
// claiming and finishes the deliveries it holds before it exits; one killed leaves its claims to expire, and another
// replica makes them.
import type pg from "pg";
import type { QueuedDelivery } from "../../core/events/webhooks.js";
import type { Statement } from "./state-pg-rows.js";

/** How long a claim holds, s: longer than a delivery attempt may take (its time-out: 10 s). */
export const CLAIM_SECONDS = 15;
/** How often each replica looks for unclaimed deliveries, ms. */
export const POLL_MS = 200;
const BATCH = 50;

const CLAIM = `
UPDATE outbox SET claimed_until = now() + make_interval(secs => $1)
WHERE id IN (
  SELECT id FROM outbox WHERE claimed_until IS NULL OR claimed_until < now()
  ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
)
RETURNING id, hook, url, secret, type, body`;

/** The statement that queues delivery `d` in workspace `ws`'s commit (its last parameter, the version, added by `run`). */
export function queueDelivery(ws: string, d: QueuedDelivery): Statement {
  return ["INSERT INTO outbox (ws, hook, url, secret, type, body, ver) VALUES ($1, $2, $3, $4, $5, $6, $7)", [ws, d.hook, d.url, d.secret, d.type, d.body]];
}

export class Outbox {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly inFlight = new Set<Promise<void>>();
  private polling: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly deliver: (d: QueuedDelivery) => Promise<void>,
    private readonly log: (line: string) => void,
  ) {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Claims what is due and unclaimed (or whose claim expired), and delivers each. */
  poll(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return (this.polling ??= this.claim().finally(() => (this.polling = null)));
  }

  private async claim(): Promise<void> {
    let rows: Array<QueuedDelivery & { id: string }>;
    try {
      rows = (await this.pool.query<QueuedDelivery & { id: string }>(CLAIM, [CLAIM_SECONDS, BATCH])).rows;
    } catch {
      return; // the database is lost (/health says so): the next poll tries again
    }
    for (const row of rows) {
      const p = this.run(row).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async run(row: QueuedDelivery & { id: string }): Promise<void> {
    await this.deliver(row);
    try {
      await this.pool.query("DELETE FROM outbox WHERE id = $1", [row.id]);
    } catch (e) {
      this.log(`webhook delivery ${row.id} made but not marked (${(e as Error).message}): its claim expires and it is made again`);
    }
  }

  /** Deliveries queued and not yet made (the queue's depth). */
  async depth(): Promise<number> {
    return Number((await this.pool.query<{ n: string }>("SELECT count(*) AS n FROM outbox")).rows[0]!.n);
  }

  /** Draining: claims nothing more, finishes the deliveries it holds. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.polling;
    await Promise.allSettled([...this.inFlight]);
  }
}
