// The event log of one resource: every event it has produced, in order, each with an id. The SSE stream and the
// WebSocket of an analysis are views of it (replay, then follow), so they can never disagree with each other or
// with what GET shows, which is written by the same steps. Ids increase in the order they are given out; a
// message sent on one view only (a live session's `transcript.partial`) takes an id from the same sequence
// without entering the log, so resuming after it works too.
import type { Json } from "../contract/contract-build.js";
import { eventStem, type StreamEvent } from "../events/events.js";

export type { StreamEvent };

type Listener = (e: StreamEvent | null) => void;

/**
 * Told of every event a log appends, then of its end (null), synchronously: how a sandbox's replicas publish an
 * analysis's events to the others (events-redis.ts). Absent in one process.
 */
export type LogTap = (log: EventLog, e: StreamEvent | null) => void;

/**
 * Runs `send` once the change that produced an event is durable, or `drop` when it could not be written (the state
 * registry's `commitThen`; issue 47): the followers are told only of what was committed. Without one, at once.
 */
export type Publish = (send: () => void, drop: (e: Error) => void) => void;

const atOnce: Publish = (send) => send();

export class EventLog {
  readonly events: StreamEvent[] = [];
  private readonly seqOf = new Map<string, number>();
  private next = 0;
  private readonly listeners = new Set<Listener>();
  private readonly stem: string;
  /** The last event has been appended: nothing more will come. */
  finished = false;
  /** How many events the followers have been told of (published: their change is durable); `after` shows no more. */
  private shown = 0;
  /** The end has been published: followers stop. */
  private ended = false;
  /** The log that took over this one's followers after a failed commit (`adopt`): unsubscribing reaches it too. */
  private successor: EventLog | undefined;

  constructor(
    readonly resourceId: string,
    private readonly tap?: LogTap,
    private publish: Publish = atOnce,
  ) {
    this.stem = eventStem(resourceId);
  }

  /** The sequence number of an id of this log (`evt_<stem>0007` → 7), or undefined when it is not one. */
  seqOfId(id: string | null | undefined): number | undefined {
    const prefix = `evt_${this.stem}`;
    if (!id?.startsWith(prefix) || !/^\d+$/.test(id.slice(prefix.length))) return undefined;
    return Number(id.slice(prefix.length));
  }

  /** A new id of this log's sequence (`evt_<stem><n>`). */
  allocate(): string {
    const id = `evt_${this.stem}${String(++this.next).padStart(4, "0")}`;
    this.seqOf.set(id, this.next);
    return id;
  }

  append(event: string, data: Json): StreamEvent {
    if (this.finished) throw new Error(`the event log of ${this.stem} is finished`);
    const e = { event, id: this.allocate(), data };
    this.events.push(e);
    const at = this.events.length;
    // Told once its write is committed; a failed write tells no one (memory is put back as the database holds it).
    this.publish(
      () => {
        this.shown = Math.max(this.shown, at);
        for (const l of this.listeners) l(e);
        this.tap?.(this, e);
      },
      () => {},
    );
    return e;
  }

  /** Appends made in `build` are history that is durable already (a log rebuilt from stored records): told at once. */
  rebuilt(build: () => void): void {
    const later = this.publish;
    this.publish = atOnce;
    try {
      build();
    } finally {
      this.publish = later;
    }
  }

  /** The resource reached its end: tells the followers, who stop, once that is committed. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.publish(
      () => {
        this.ended = true;
        for (const l of [...this.listeners]) l(null);
        this.listeners.clear();
        this.tap?.(this, null);
      },
      () => {},
    );
  }

  /** The events after `lastEventId`; all of them when it is absent or not an id of this log. */
  after(lastEventId: string | null | undefined): StreamEvent[] {
    const seq = lastEventId ? this.seqOf.get(lastEventId) : undefined;
    const shown = this.events.slice(0, this.shown);
    return seq === undefined ? shown : shown.filter((e) => this.seqOf.get(e.id)! > seq);
  }

  /** Whether `lastEventId` is the log's last event, or later, in a finished log: a reader has had everything. */
  hasSeenAll(lastEventId: string | null | undefined): boolean {
    if (!this.ended || !lastEventId) return false;
    const seq = this.seqOf.get(lastEventId);
    const last = this.events.at(-1);
    return seq !== undefined && last !== undefined && seq >= this.seqOf.get(last.id)!;
  }

  /** Calls `listener` with each new event, then with null when the log finishes. Returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    if (this.ended) {
      listener(null);
      return () => {};
    }
    this.listeners.add(listener);
    return () => {
      for (let log: EventLog | undefined = this; log; log = log.successor) log.listeners.delete(listener);
    };
  }

  /** Whether a stream follows this log now. */
  get followed(): boolean {
    return this.listeners.size > 0;
  }

  /**
   * This log, read back from the database after a failed commit (store.ts `rollback`), takes over the followers of
   * `old`, the copy that left memory: they are told what this log holds after the last event they were shown (the
   * ids of a log rebuilt from stored records are the ones it had), then what it appends, and its end. A follower
   * of a copy nobody reads again would be told nothing more (issue 47).
   */
  adopt(old: EventLog): void {
    const listeners = [...old.listeners];
    old.listeners.clear();
    old.successor = this;
    const lastShown = old.events[old.shown - 1]?.id;
    const missed = lastShown !== undefined && this.seqOf.has(lastShown) ? this.after(lastShown) : [];
    for (const l of listeners) {
      for (const e of missed) l(e);
      if (this.ended) l(null);
      else this.listeners.add(l);
    }
  }

  /** The resource is gone with a failed commit (its create was not written): its followers end. */
  abandon(): void {
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const l of listeners) l(null);
  }

  snapshot(): Json {
    return { events: this.events, next: this.next, finished: this.finished, ids: [...this.seqOf] };
  }

  static restore(resourceId: string, data: Json, tap?: LogTap, publish?: Publish): EventLog {
    const log = new EventLog(resourceId, tap, publish);
    log.events.push(...data.events);
    log.shown = log.events.length; // restored from the database: durable
    log.next = data.next;
    log.finished = log.ended = data.finished;
    for (const [id, seq] of data.ids) log.seqOf.set(id, seq);
    return log;
  }
}

/**
 * Replays the log after `lastEventId`, then follows it: `send` gets each event, `end` is called once when the log
 * finishes. Returns a function that stops following (the reader left).
 */
export function follow(log: EventLog, lastEventId: string | null | undefined, send: (e: StreamEvent) => void, end: () => void): () => void {
  for (const e of log.after(lastEventId)) send(e);
  return log.subscribe((e) => (e ? send(e) : end()));
}

/**
 * How the event streams (SSE, WebSocket) read an analysis's log: in one process the log itself (`localFeeds`); in a
 * sandbox's replicas a shared log every replica appends to and reads (events-redis.ts), so a client on one replica
 * sees the events of a change made through another, and resumes on a third.
 */
export interface EventFeeds {
  /** The tap of every log the store makes in a workspace (publishing its events); undefined when nothing is shared. */
  readonly tapFor?: (workspaceId: string) => LogTap;
  /** Whether `lastEventId` is the last event of the finished log: the reader has had everything (SSE 204). */
  hasSeenAll(workspaceId: string, log: EventLog, lastEventId: string | null): boolean | Promise<boolean>;
  /** `follow` over the feed: replay after `lastEventId`, then live, then `end`; returns the stop. */
  follow(workspaceId: string, log: EventLog, lastEventId: string | null, send: (e: StreamEvent) => void, end: () => void): () => void;
}

/** One process: the streams read the analysis's own log. */
export const localFeeds: EventFeeds = {
  hasSeenAll: (_ws, log, last) => log.hasSeenAll(last),
  follow: (_ws, log, last, send, end) => follow(log, last, send, end),
};
