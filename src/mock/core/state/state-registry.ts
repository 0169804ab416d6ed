// Every part of the state the mock keeps between requests (state.ts), in one list: `POST /__mock/reset` resets
// them all, the state database (state-db.ts) saves and loads them all. A part joins with one line,
// `services.states.register(part)`, and says `services.states.changed()` when it changes by itself (a timer, a
// delivery); requests that change something are noticed without it (serve.ts commits them before answering).
import type { MockState } from "./state.js";

export class StateRegistry {
  private readonly parts = new Map<string, MockState>();
  private readonly listeners = new Set<() => void>();
  private readonly committers = new Set<() => void>();
  private readonly rollbacks = new Set<() => void>();
  /** The commit of a shared database (state-pg.ts): asynchronous, one batch at a time (decision SB6). */
  private asyncCommitter: (() => Promise<void>) | null = null;
  /** The batch being committed by `asyncCommitter`, if any. */
  private inflight: Promise<void> | null = null;
  /** Answers waiting for the next commit (group commit: one transaction for the requests of one turn of the loop). */
  private waiting: Array<{ send: () => void; fail: (e: Error) => void }> = [];

  /** Adds a part; its `name` must be new (it is the part's key in the state file). */
  register(part: MockState): void {
    if (this.parts.has(part.name)) throw new Error(`a mock state named "${part.name}" is already registered`);
    this.parts.set(part.name, part);
  }

  get all(): readonly MockState[] {
    return [...this.parts.values()];
  }

  get(name: string): MockState | undefined {
    return this.parts.get(name);
  }

  /** Every part back to its seeded start. */
  reset(): void {
    for (const part of this.parts.values()) part.reset();
    this.changed();
  }

  /** Something changed: tells the listeners (the state database writes it; a failure is logged). Call it freely. */
  changed(): void {
    for (const fn of this.listeners) fn();
  }

  /**
   * A request changed something: written now, before its answer is sent (serve.ts). Throws when it cannot be
   * written, so the request answers 500 rather than acknowledging a change that is not kept.
   */
  commit(): void {
    for (const fn of this.committers) fn();
  }

  /**
   * Sends a request's answer once its change is written: at once when nothing writes changes (in memory);
   * otherwise after one commit, made when this turn of the event loop is over, for every request that changed
   * something in it (group commit: the transaction's cost is shared). `fail` gets the error when the commit failed;
   * memory is then put back as the database holds it (`onRollback`) before any other request runs, so a change that
   * was not written is never seen again (decision DB9).
   */
  commitThen(send: () => void, fail: (e: Error) => void): void {
    if (!this.committers.size && !this.asyncCommitter) return send();
    this.waiting.push({ send, fail });
    if (this.waiting.length === 1 && !this.inflight) setImmediate(() => this.commitWaiting());
  }

  /**
   * Is a commit pending? Then memory holds changes not yet written, and any answer computed now may show them: it
   * waits for that commit too (serve.ts), and fails with it (decision DB9: a change is shown once it is durable).
   */
  get pending(): boolean {
    return this.waiting.length > 0 || this.inflight !== null;
  }

  private commitWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (this.asyncCommitter) return void (this.inflight = this.commitAsync(this.asyncCommitter, batch));
    let error: Error | null = null;
    try {
      this.commit();
    } catch (e) {
      error = e as Error;
      this.rollback();
    }
    this.settle(batch, error);
  }

  /** One batch through the shared database's commit; the answers that waited meanwhile form the next batch. */
  private async commitAsync(commit: () => Promise<void>, batch: typeof this.waiting): Promise<void> {
    let error: Error | null = null;
    try {
      await commit();
    } catch (e) {
      error = e as Error;
      this.rollback();
    }
    this.inflight = null;
    this.settle(batch, error);
    if (this.waiting.length) this.commitWaiting();
  }

  private settle(batch: typeof this.waiting, error: Error | null): void {
    for (const w of batch) {
      try {
        if (error) w.fail(error);
        else w.send();
      } catch (e) {
        w.fail(e as Error);
      }
    }
  }

  /** `fn` is called on every change; it must not throw (it runs in timers too). */
  onChange(fn: () => void): void {
    this.listeners.add(fn);
  }

  /** `fn` is called on every request's change before its answer; it throws when the change cannot be kept. */
  onCommit(fn: () => void): void {
    this.committers.add(fn);
  }

  /**
   * `fn` writes every change, asynchronously (a shared database): answers wait for it as for `onCommit`'s, one
   * batch at a time. Only one such committer.
   */
  onCommitAsync(fn: () => Promise<void>): void {
    this.asyncCommitter = fn;
  }

  /** `fn` puts memory back as the database holds it, after a commit failed; it must not throw. */
  onRollback(fn: () => void): void {
    this.rollbacks.add(fn);
  }

  private rollback(): void {
    for (const fn of this.rollbacks) fn();
  }
}
