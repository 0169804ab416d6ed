// The event fan-out of a sandbox run as replicas (`--redis URL`, decision SB10): every event an analysis's log
// appends is published to a Redis Stream of its own (`avt:ev:<workspace>:<analysis>`), and every replica's SSE and
// WebSocket clients read that stream, so a client on replica A receives, in order, the events of a change made
// through replica B, and resumes on replica C with `Last-Event-ID`.
//
// - Entry ids are the event's sequence in its analysis (`evt_<stem>0007` is entry `7-0`; the end of the log is
//   `<last>-1`), so event ids are the same on every replica, and Redis's own rule (an XADD id must be above the
//   stream's top) makes a second copy of an event a no-op: replicas that each hold the analysis (the same fixtures,
//   a replayed history) publish it once, with no gap and no duplicate.
// - One replica at a time publishes an analysis (an owner lease, SET PX, renewed by each publish): its copy's
//   events go out whole, never interleaved with another copy's (whose content ids differ). A replica refused waits
//   for the lease to lapse and publishes what the stream lacks, so the stream goes on if the owner dies.
// - Readers: one dedicated connection per replica runs XREAD BLOCK over every stream its clients follow, from the
//   lowest position any of them has seen, and hands each client the entries past its own position (in process).
//   A new client wakes it (CLIENT UNBLOCK) so its replay starts at once.
// - Streams are capped (MAXLEN ~ 10,000 entries, far above an analysis's events) and expire a day after their
//   last event; a replica asked for an analysis whose stream is missing (never published from there, expired, or lost with a
//   restarted Redis) publishes its copy whole.
import type { Redis as RedisClient } from "ioredis";
import { DependencyUnavailable } from "../../core/state/shared-state.js";
import type { EventFeeds, EventLog, LogTap, StreamEvent } from "../../core/store/log.js";

const APPEND = `
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local added = 0
for i = 5, #ARGV, 3 do
  local r = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], ARGV[i], 'id', ARGV[i + 1], 'e', ARGV[i + 2])
  if type(r) ~= 'table' then added = added + 1 end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return added
`;

/** How long an analysis's publishing replica keeps the right to publish it after its last publish. */
export const OWNER_LEASE_MS = 5_000;
const STREAM_TTL_MS = 24 * 3_600_000;
const MAX_LEN = 10_000;
const BLOCK_MS = 5_000;
const END = "__end";

interface Scripted {
  avtEventAppend(stream: string, owner: string, ...argv: (string | number)[]): Promise<number>;
}

/** A stream entry id as two numbers, to compare positions. */
type Pos = [number, number];
const pos = (id: string): Pos => {
  const [a, b] = id.split("-");
  return [Number(a), Number(b ?? 0)];
};
const after = (a: Pos, b: Pos) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

interface Reader {
  at: Pos;
  send: (e: StreamEvent) => void;
  end: () => void;
}

/** What this replica has published of one log. */
interface Published {
  sent: number;
  ended: boolean;
  busy: boolean;
  again: boolean;
  retry: ReturnType<typeof setTimeout> | null;
}

export class RedisEventFeeds implements EventFeeds {
  private readonly replica = `r${Math.random().toString(36).slice(2, 12)}`;
  private readonly published = new WeakMap<EventLog, Published>();
  /** The workspace of each tapped log (its stream's key). */
  private readonly workspaceOf = new WeakMap<EventLog, string>();
  private readonly readers = new Map<string, Set<Reader>>();
  private readonly conn: RedisClient;
  private connId: number | null = null;
  private generation = 0;
  private reading = -1;
  private closed = false;
  private wakeIdle: (() => void) | null = null;

  constructor(private readonly redis: RedisClient) {
    redis.defineCommand("avtEventAppend", { numberOfKeys: 2, lua: APPEND });
    // Its own connection: XREAD BLOCK holds it; a command time-out past the block time.
    this.conn = redis.duplicate({ commandTimeout: BLOCK_MS + 3_000 });
    this.conn.on("error", () => undefined);
    this.conn.on("close", () => (this.connId = null));
    void this.loop();
  }

  /** An arrow: the store holds it apart from this object. */
  readonly tapFor = (workspaceId: string): LogTap => (log) => {
    this.workspaceOf.set(log, workspaceId);
    this.schedule(log);
  };

  private key(workspaceId: string, log: EventLog): string {
    return `avt:ev:${workspaceId}:${log.resourceId}`;
  }

  /** Publishes the log's new events once the current task is over (a step's events go out in one script). */
  private schedule(log: EventLog): void {
    const p = this.stateOf(log);
    if (p.busy) return void (p.again = true);
    p.busy = true;
    queueMicrotask(() => void this.flush(log));
  }

  private stateOf(log: EventLog): Published {
    let p = this.published.get(log);
    if (!p) this.published.set(log, (p = { sent: 0, ended: false, busy: false, again: false, retry: null }));
    return p;
  }

  /** Sends what the stream may lack; refused (another owner) or Redis down: tries again after the lease. */
  private async flush(log: EventLog): Promise<void> {
    const p = this.stateOf(log);
    p.busy = true;
    const ws = this.workspaceOf.get(log);
    if (ws === undefined) return void (p.busy = false);
    const events = log.events.slice(p.sent);
    const ending = log.finished && !p.ended;
    const argv: string[] = [];
    for (const e of events) argv.push(`${log.seqOfId(e.id)}-0`, e.id, JSON.stringify([e.event, e.data]));
    if (ending) argv.push(`${log.seqOfId(log.events.at(-1)?.id) ?? 0}-1`, "", JSON.stringify([END, null]));
    let ok = argv.length === 0;
    if (!ok) {
      try {
        const key = this.key(ws, log);
        ok = (await (this.redis as unknown as Scripted).avtEventAppend(key, `${key}:owner`, this.replica, OWNER_LEASE_MS, STREAM_TTL_MS, MAX_LEN, ...argv)) >= 0;
      } catch {
        ok = false;
      }
    }
    if (ok) {
      p.sent += events.length;
      p.ended ||= ending;
    } else if (!p.retry && !this.closed) {
      p.retry = setTimeout(() => ((p.retry = null), this.schedule(log)), OWNER_LEASE_MS + 100);
      p.retry.unref?.();
    }
    p.busy = false;
    if (p.again) {
      p.again = false;
      this.schedule(log);
    }
  }

  /**
   * Publishes the log now when Redis may lack it (a client asks): never published from here, or the stream is gone
   * (expired, or a Redis restarted without its data), then sent again whole.
   */
  private async publishNow(workspaceId: string, log: EventLog): Promise<void> {
    this.workspaceOf.set(log, workspaceId);
    const p = this.stateOf(log);
    if (p.busy) return;
    if (p.sent > 0 && (await this.redis.exists(this.key(workspaceId, log)).catch(() => 1)) === 0) {
      p.sent = 0;
      p.ended = false;
    }
    if (p.sent === 0 && !p.busy) await this.flush(log);
  }

  async hasSeenAll(workspaceId: string, log: EventLog, lastEventId: string | null): Promise<boolean> {
    const seq = log.seqOfId(lastEventId);
    if (seq === undefined) return false;
    await this.publishNow(workspaceId, log);
    let top: [string, string[]] | undefined;
    try {
      top = (await this.redis.xrevrange(this.key(workspaceId, log), "+", "-", "COUNT", 1))[0];
    } catch (e) {
      throw new DependencyUnavailable("redis", e);
    }
    return top !== undefined && top[0].endsWith("-1") && seq >= pos(top[0])[0];
  }

  follow(workspaceId: string, log: EventLog, lastEventId: string | null, send: (e: StreamEvent) => void, end: () => void): () => void {
    const key = this.key(workspaceId, log);
    const reader: Reader = { at: [log.seqOfId(lastEventId) ?? 0, 0], send, end };
    let stopped = false;
    void this.publishNow(workspaceId, log).then(() => {
      if (stopped) return;
      let set = this.readers.get(key);
      if (!set) this.readers.set(key, (set = new Set()));
      set.add(reader);
      this.wake();
    });
    return () => {
      stopped = true;
      const set = this.readers.get(key);
      set?.delete(reader);
      if (set?.size === 0) this.readers.delete(key);
    };
  }

  /** The reader connection must start over with the new set of streams: unblock its XREAD (retried until it has). */
  private wake(): void {
    this.generation++;
    if (this.wakeIdle) {
      this.wakeIdle();
      return;
    }
    const wanted = this.generation;
    const nudge = () => {
      if (this.closed || this.reading >= wanted || this.wakeIdle) return this.wakeIdle?.();
      const id = this.connId;
      const retry = () => setTimeout(nudge, 5).unref?.();
      if (id === null) return void retry();
      this.redis.client("UNBLOCK", id).then((n) => (Number(n) === 0 ? retry() : undefined), retry);
    };
    nudge();
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      if (this.readers.size === 0) {
        await new Promise<void>((resolve) => (this.wakeIdle = () => ((this.wakeIdle = null), resolve())));
        continue;
      }
      const keys = [...this.readers.keys()];
      const from = keys.map((k) => lowest(this.readers.get(k)!));
      this.reading = this.generation;
      try {
        if (this.connId === null) this.connId = Number(await this.conn.client("ID"));
        const got = (await this.conn.xread("COUNT", 1000, "BLOCK", BLOCK_MS, "STREAMS", ...keys, ...from)) as [string, [string, string[]][]][] | null;
        for (const [key, entries] of got ?? []) this.deliver(key, entries);
      } catch {
        if (!this.closed) await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** Hands each reader of `key` the entries past its own position, in order; the end marker ends it. */
  private deliver(key: string, entries: [string, string[]][]): void {
    for (const reader of [...(this.readers.get(key) ?? [])]) {
      for (const [id, fields] of entries) {
        const at = pos(id);
        if (!after(at, reader.at)) continue;
        reader.at = at;
        const [event, data] = JSON.parse(fields[3]!) as [string, StreamEvent["data"]];
        if (event === END) {
          this.readers.get(key)?.delete(reader);
          reader.end();
          break;
        }
        reader.send({ event, id: fields[1]!, data });
      }
    }
    if (this.readers.get(key)?.size === 0) this.readers.delete(key);
  }

  close(): void {
    this.closed = true;
    this.wakeIdle?.();
    this.conn.disconnect();
  }
}

/** The lowest position any reader of a stream has seen: where its XREAD starts. */
function lowest(readers: Set<Reader>): string {
  let low: Pos | null = null;
  for (const r of readers) if (!low || after(low, r.at)) low = r.at;
  return `${low![0]}-${low![1]}`;
}
