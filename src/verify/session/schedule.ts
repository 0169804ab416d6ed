// Order of sending, around rate limits. Requests fall into buckets the way a service counts them (who calls, which
// category); a 429 blocks its bucket for Retry-After and the request is sent again later, up to three times, while
// requests of other buckets go on meanwhile (unauthenticated requests are limited apart from the workspace's, so
// waiting for one never stalls the other). Waiting is bounded: when every pending request is blocked and the wait
// would pass the budget (--max-wait), or one Retry-After alone is longer than what is left of it (a daily limit),
// the requests concerned are skipped and reported as such.
import type { Clock, Sent } from "./session.js";

export interface Job {
  bucket: string;
  run(): Promise<Sent>;
  skip(reason: string): void;
}

const MAX_ATTEMPTS = 3;

export class Scheduler {
  private readonly blockedUntil = new Map<string, number>();
  waitedMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxWaitMs: number,
  ) {}

  private free(bucket: string, now: number): boolean {
    return (this.blockedUntil.get(bucket) ?? 0) <= now;
  }

  /** Runs every job, each when its bucket is free. */
  async runAll(jobs: Job[]): Promise<void> {
    const pending = jobs.map((job) => ({ job, attempts: 0 }));
    while (pending.length) {
      const now = this.clock.now();
      const i = pending.findIndex((p) => this.free(p.job.bucket, now));
      if (i < 0) {
        const wait = Math.min(...pending.map((p) => this.blockedUntil.get(p.job.bucket)!)) - now;
        if (this.waitedMs + wait > this.maxWaitMs) {
          for (const p of pending.splice(0)) p.job.skip(this.overBudget(wait));
          return;
        }
        await this.sleep(wait);
        continue;
      }
      const p = pending[i]!;
      const r = await p.job.run();
      if (r.kind === "skipped") {
        pending.splice(i, 1);
        p.job.skip(r.reason);
      } else if (r.retryAfterMs === null) {
        pending.splice(i, 1);
      } else if (++p.attempts >= MAX_ATTEMPTS) {
        // Hopeless for this bucket: skip the job and every other one waiting on the same limit.
        const reason = `still rate limited (429) after ${MAX_ATTEMPTS} attempts`;
        for (let j = pending.length - 1; j >= 0; j--) if (pending[j]!.job.bucket === p.job.bucket) pending.splice(j, 1)[0]!.job.skip(reason);
      } else {
        // A wait past the budget (a daily limit) is found out when nothing else is left to send: see above.
        this.blockedUntil.set(p.job.bucket, this.clock.now() + r.retryAfterMs);
      }
    }
  }

  /** Runs one job now, waiting out its 429s within the budget (for steps that must follow each other). */
  async runOne(job: Job): Promise<Sent> {
    for (let attempt = 1; ; attempt++) {
      const blocked = (this.blockedUntil.get(job.bucket) ?? 0) - this.clock.now();
      if (blocked > 0) {
        if (this.waitedMs + blocked > this.maxWaitMs) return { kind: "skipped", reason: this.overBudget(blocked) };
        await this.sleep(blocked);
      }
      const r = await job.run();
      if (r.kind === "skipped" || r.retryAfterMs === null) return r;
      if (attempt >= MAX_ATTEMPTS) return { kind: "skipped", reason: `still rate limited (429) after ${MAX_ATTEMPTS} attempts` };
      this.blockedUntil.set(job.bucket, this.clock.now() + r.retryAfterMs);
    }
  }

  private async sleep(ms: number): Promise<void> {
    this.waitedMs += ms;
    await this.clock.sleep(ms);
  }

  private overBudget(ms: number): string {
    return `rate limited: waiting ${Math.ceil(ms / 1000)} s more would pass the wait budget (--max-wait ${Math.round(this.maxWaitMs / 1000)} s)`;
  }
}
