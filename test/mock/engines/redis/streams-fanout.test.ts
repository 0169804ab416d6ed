// Event fan-out across replicas (decision SB10): with `--redis`, an analysis's events go through a Redis Stream, so
// an SSE client on replica A sees, in order, every event of an analysis whose processing runs elsewhere, and resumes
// on replica C with Last-Event-ID after A is killed, with no gap and no duplicate. Real redis-server, real gateway
// processes. Records are each replica's own until they move to PostgreSQL: every replica seeds the same demo
// workspace, whose processing analysis each moves on its own; the stream carries one copy of its events (the same
// ids on every replica), which is what a client on any replica sees. The assertions hold as well when the records
// are shared and only one replica runs the steps.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, startRedis, type Engine } from "../../../../scripts/lib/engines.js";
import { startReplicas, type Replica } from "../../../../scripts/lib/replicas.js";
import { wsSession } from "../../../helpers/mock.js";

const skip = missing("redis");
const KEY = { "X-API-Key": "pk_test_demo_pro" };
/** The demo workspace's analysis that is still processing: it moves on, releasing its content, then completes. */
const PROCESSING = "anl_01HZXB3M5N7P9Q1R3S5T7V9W2X";
const seqOf = (id: string) => Number(id.slice(`evt_${PROCESSING.slice(4)}`.length));

/** An SSE stream read event by event: `next(n)` waits for n more events; `rest()` reads to the end. */
function sseReader(res: Response) {
  const events: EventSourceMessage[] = [];
  let wake = null as (() => void) | null;
  let done = false;
  const parser = createParser({ onEvent: (e) => (events.push(e), wake?.()) });
  const decoder = new TextDecoder();
  const pump = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // the replica was killed: the stream ends as a dropped connection does
    }
    done = true;
    wake?.();
  })();
  return {
    events,
    async next(n: number, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (events.length < n && !done && Date.now() < until) await new Promise<void>((r) => ((wake = r), setTimeout(r, 200)));
      return events;
    },
    rest: () => pump.then(() => events),
  };
}

describe.skipIf(skip !== null)(skip ?? "event streams across replicas on Redis", () => {
  let redis: Engine;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    // Each step of the analysis takes 4 s: its content is released over that time.
    const env = { MOCK_STEP_MS: "4000" };
    replicas = await startReplicas(3, ["--redis", redis.url], env);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await redis?.stop();
  });

  it("an SSE client on A sees every event in order, and resumes on C after A is killed, with no gap and no duplicate", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    // Every replica holds the workspace (its processing analysis moving on): B first, as the one making the change.
    for (const r of [b, c, a]) expect((await fetch(`${r.url}/v1/analyses/${PROCESSING}`, { headers: KEY })).status).toBe(200);
    const onA = sseReader(await fetch(`${a.url}/v1/analysis/${PROCESSING}/stream`, { headers: KEY }));
    const first = [...(await onA.next(4))];
    expect(first.length).toBeGreaterThanOrEqual(4);
    await a.kill();
    const seenOnA = await onA.rest();
    const last = seenOnA.at(-1)!.id!;
    const res = await fetch(`${c.url}/v1/analysis/${PROCESSING}/stream`, { headers: { ...KEY, "Last-Event-ID": last } });
    expect(res.status).toBe(200);
    const onC = await sseReader(res).rest();
    const all = [...seenOnA, ...onC];
    const seqs = all.map((e) => seqOf(e.id!));
    expect(seqs, all.map((e) => `${e.id} ${e.event}`).join("\n")).toEqual(seqs.map((_, i) => i + 1));
    expect(onC.length).toBeGreaterThan(0);
    expect(all.at(-1)!.event).toBe("completed");
    expect(all.filter((e) => e.event === "completed")).toHaveLength(1);
    // The same stream read whole through B: the same ids, events and data, in the same order.
    const onB = await sseReader(await fetch(`${b.url}/v1/analysis/${PROCESSING}/stream`, { headers: KEY })).rest();
    expect(onB.map((e) => [e.id, e.event, e.data])).toEqual(all.map((e) => [e.id, e.event, e.data]));
    // A WebSocket on C, resuming after A's part, carries the same events.
    const ws = await wsSession(`${c.url.replace("http", "ws")}/ws/analyses/${PROCESSING}?token=pk_test_demo_pro&last_event_id=${last}`);
    expect(ws.code).toBe(1000);
    expect(ws.messages.map((m) => [m.id, m.event, JSON.stringify(m.data)])).toEqual(onC.map((e) => [e.id, e.event, e.data]));
    // And a client that has seen the last event is told there is nothing more, on any replica.
    expect((await fetch(`${b.url}/v1/analysis/${PROCESSING}/stream`, { headers: { ...KEY, "Last-Event-ID": all.at(-1)!.id! } })).status).toBe(204);
  }, 90_000);
});
