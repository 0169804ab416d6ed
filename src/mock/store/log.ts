// The event log of one resource: every event it has produced, in order, each with an id. The SSE stream and the
// WebSocket of an analysis are views of it (replay, then follow), so they can never disagree with each other or
// with what GET shows, which is written by the same steps. Ids increase in the order they are given out; a
// message sent on one view only (a live session's `transcript.partial`) takes an id from the same sequence
// without entering the log, so resuming after it works too.
import type { Json } from "../contract.js";
import { eventStem, type StreamEvent } from "../events.js";

export type { StreamEvent };

type Listener = (e: StreamEvent | null) => void;


export class EventLog {
  readonly events: StreamEvent[] = [];
  private readonly seqOf = new Map<string, number>();
  private next = 0;
  private readonly listeners = new Set<Listener>();
  private readonly stem: string;
  /** The last event has been appended: nothing more will come. */
  finished = false;

  constructor(resourceId: string) {
    this.stem = eventStem(resourceId);
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
    for (const l of this.listeners) l(e);
    return e;
  }

  /** The resource reached its end: tells the followers, who stop. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const l of [...this.listeners]) l(null);
    this.listeners.clear();
  }

  /** The events after `lastEventId`; all of them when it is absent or not an id of this log. */
  after(lastEventId: string | null | undefined): StreamEvent[] {
    const seq = lastEventId ? this.seqOf.get(lastEventId) : undefined;
    return seq === undefined ? [...this.events] : this.events.filter((e) => this.seqOf.get(e.id)! > seq);
  }

  /** Whether `lastEventId` is the log's last event, or later, in a finished log: a reader has had everything. */
  hasSeenAll(lastEventId: string | null | undefined): boolean {
    if (!this.finished || !lastEventId) return false;
    const seq = this.seqOf.get(lastEventId);
    const last = this.events.at(-1);
    return seq !== undefined && last !== undefined && seq >= this.seqOf.get(last.id)!;
  }

  /** Calls `listener` with each new event, then with null when the log finishes. Returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    if (this.finished) {
      listener(null);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): Json {
    return { events: this.events, next: this.next, finished: this.finished, ids: [...this.seqOf] };
  }

  static restore(resourceId: string, data: Json): EventLog {
    const log = new EventLog(resourceId);
    log.events.push(...data.events);
    log.next = data.next;
    log.finished = data.finished;
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
