// The whole sandbox at once (issue 35): 3 replicas on one PostgreSQL (records, decisions SB5-SB8) and one Redis
// (counters, event streams, the clock: SB1, SB10, SB12), over real HTTP. An analysis is created through replica B;
// its steps are due only when the simulated clock, paused, is advanced through replica C, and run once, on whichever
// replica takes the workspace's lock (SB8); an SSE client on replica A sees every event in order, and after A is
// killed resumes on C with Last-Event-ID, with no gap and no duplicate, to one `completed`. The record every replica
// reads back is the one the stream told of.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, missingPostgres, startPostgres, startRedis, type Engine } from "../../../scripts/lib/engines.js";
import { keysFile, startReplicas, type Replica } from "../../../scripts/lib/replicas.js";

const skip = missingPostgres() ?? missing("redis");
const ALPHA = { key: "pk_test_story_alpha", workspace_id: "ws_StoryAlpha01", plan: "pro" };
const BRAVO = { key: "pk_test_story_bravo", workspace_id: "ws_StoryBravo01", plan: "pro" };
const STEP_MS = 1000;

async function call(r: Replica, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${r.url}${path}`, {
    method,
    headers: { ...(key ? { "X-API-Key": key } : {}), ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** An SSE stream read as it comes: `until(pred)` waits for an event that satisfies it; `rest()` reads to the end. */
function sseReader(res: Response) {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  let done = false;
  const pump = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // the replica was killed: the stream ends as a dropped connection does
    }
    done = true;
  })();
  return {
    events,
    async atLeast(n: number, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (events.length < n && !done && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      return events;
    },
    rest: () => pump.then(() => events),
  };
}

describe.skipIf(skip !== null)(skip ?? "the sandbox on PostgreSQL and Redis together", () => {
  let db: Engine;
  let redis: Engine;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [db, redis] = await Promise.all([startPostgres(), startRedis()]);
    const args = ["--state", db.url, "--redis", redis.url, "--keys", keysFile([ALPHA, BRAVO])];
    replicas = await startReplicas(3, args, { MOCK_STEP_MS: String(STEP_MS) });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await Promise.all([db?.stop(), redis?.stop()]);
  });

  it("created on B, moved by advancing the clock through C, streamed on A, resumed on C after A is killed: every event once, in order", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    expect((await call(c, "POST", "/__mock/clock", null, { action: "pause" })).status).toBe(200);
    const made = await call(b, "POST", "/v1/analyses", ALPHA.key, { media_url: "https://media.example.com/calls/story.mp3", media_type: "audio", features: ["transcription", "diarization", "summary"] });
    expect(made.status).toBe(202);
    const id = made.body.id as string;
    // Read through A and C at once: the record B wrote, and still queued (nothing moves while the clock is paused).
    for (const r of [a, c]) expect((await call(r, "GET", `/v1/analyses/${id}`, ALPHA.key)).body).toMatchObject({ id, status: "queued" });
    // Another workspace sees nothing of it, on any replica: not the record, not its stream.
    for (const r of replicas) {
      expect((await call(r, "GET", `/v1/analyses/${id}`, BRAVO.key)).status).toBe(404);
      expect((await fetch(`${r.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": BRAVO.key } })).status).toBe(404);
    }

    const onA = sseReader(await fetch(`${a.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": ALPHA.key } }));
    // One step's worth through C: the analysis starts processing, and A's client is told. (Two steps' worth, now that
    // every step due by the advanced time runs at once as in one process, SB24, left nothing for C to stream.)
    expect((await call(c, "POST", "/__mock/clock", null, { action: "advance", ms: STEP_MS })).status).toBe(200);
    const early = [...(await onA.atLeast(2))];
    expect(early.length).toBeGreaterThanOrEqual(2);
    await a.kill();
    const seenOnA = await onA.rest();

    // The rest of the story, through C again, while a client resumes on C from the last event A sent.
    const resumed = sseReader(await fetch(`${c.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": ALPHA.key, "Last-Event-ID": seenOnA.at(-1)!.id! } }));
    for (let i = 0; i < 60 && !resumed.events.some((e) => e.event === "completed"); i++) {
      expect((await call(c, "POST", "/__mock/clock", null, { action: "advance", ms: STEP_MS })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    const onC = await resumed.rest();
    expect(onC.length).toBeGreaterThan(0);
    const all = [...seenOnA, ...onC];
    const ids = all.map((e) => e.id!);
    expect(new Set(ids).size, ids.join("\n")).toBe(ids.length);
    // Event ids end in the event's number in its analysis (SB10): 1, 2, 3 … with no gap.
    const seqs = ids.map((e) => Number(/(\d+)$/.exec(e)![1]));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(all.filter((e) => e.event === "completed")).toHaveLength(1);
    expect(all.at(-1)!.event).toBe("completed");

    // Every surviving replica reads the same completed record, with the transcript the stream's content came from.
    const [onB, onC2] = await Promise.all([call(b, "GET", `/v1/analyses/${id}`, ALPHA.key), call(c, "GET", `/v1/analyses/${id}`, ALPHA.key)]);
    expect(onB.body).toMatchObject({ id, status: "completed" });
    expect(onC2.body).toEqual(onB.body);
    const transcript = await call(b, "GET", `/v1/analyses/${id}/transcript`, ALPHA.key);
    expect(transcript.status).toBe(200);
    expect(transcript.body.analysis_id ?? id).toBe(id);
  }, 180_000);
});
