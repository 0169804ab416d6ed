// The simulated clock shared by replicas (decision SB12), with the event fan-out (SB10): pause, advance and resume
// made through one replica hold on every other; an analysis paused everywhere moves only when the clock is advanced
// through B, and a client streaming it from A sees every event of that advance, in order, to the end; its completion,
// which every replica's copy emits, reaches a webhook receiver once (decision SB13). Real
// redis-server, real gateway processes.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing, startRedis, type Engine } from "../../../../scripts/lib/engines.js";
import { startReplicas, type Replica } from "../../../../scripts/lib/replicas.js";
import { startReceiver } from "../../../helpers/mock.js";

const skip = missing("redis");
const KEY = { "X-API-Key": "pk_test_demo_pro" };
const PROCESSING = "anl_01HZXB3M5N7P9Q1R3S5T7V9W2X";
const STEP_MS = 4000;

async function clockOf(r: Replica, body?: object) {
  const res = await fetch(`${r.url}/__mock/clock`, body ? { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) } : {});
  expect(res.status).toBe(200);
  return (await res.json()) as { now: string; paused: boolean; pending: number };
}

/** Collects an SSE stream's events as they come; `ended` settles when it ends. */
function collect(res: Response) {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  })();
  return { events, ended };
}

describe.skipIf(skip !== null)(skip ?? "the simulated clock across replicas on Redis", () => {
  let redis: Engine;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const env = { MOCK_STEP_MS: String(STEP_MS) };
    replicas = await startReplicas(3, ["--redis", redis.url, "--allow-loopback-webhooks"], env);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await redis?.stop();
  });

  it("paused through B, every replica is paused at the same time; advanced through B, A's stream shows every event of the step", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const paused = await clockOf(b, { action: "pause" });
    for (const r of [a, c]) expect(await clockOf(r)).toMatchObject({ paused: true, now: paused.now });
    // Every replica holds the workspace, its processing analysis waiting for its step in paused time.
    for (const r of [a, b, c]) expect((await fetch(`${r.url}/v1/analyses/${PROCESSING}`, { headers: KEY })).status).toBe(200);
    const stream = collect(await fetch(`${a.url}/v1/analysis/${PROCESSING}/stream`, { headers: KEY }));
    await new Promise((r) => setTimeout(r, STEP_MS + 500)); // a whole step of real time: nothing moves
    const before = stream.events.map((e) => e.event);
    expect(before).toEqual(["status", "status"]);
    expect((await (await fetch(`${c.url}/v1/analyses/${PROCESSING}`, { headers: KEY })).json()).status).toBe("processing");

    // Every replica has a webhook to one receiver: the completion each replica's copy emits is delivered once.
    const receiver = await startReceiver();
    for (const r of [a, b, c]) {
      const res = await fetch(`${r.url}/v1/webhooks`, { method: "POST", headers: { ...KEY, "Content-Type": "application/json" }, body: JSON.stringify({ url: receiver.url, event_types: ["analysis.completed"] }) });
      expect(res.status).toBe(201);
    }
    const advanced = await clockOf(b, { action: "advance", ms: STEP_MS });
    await stream.ended;
    await new Promise((r) => setTimeout(r, 2_000)); // time for any second delivery to arrive
    const completions = receiver.deliveries.filter((d) => d.body.data?.analysis?.id === PROCESSING);
    await receiver.close();
    expect(completions.map((d) => d.body.type)).toEqual(["analysis.completed"]);
    const seqs = stream.events.map((e) => Number(e.id!.slice(-4)));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(stream.events.length).toBeGreaterThan(4);
    expect(stream.events.at(-1)!.event).toBe("completed");
    // The step ran on C too (its own copy): the analysis is completed there, at the time B advanced to.
    for (const r of [a, c]) expect(await clockOf(r)).toMatchObject({ paused: true, now: advanced.now });
    expect((await (await fetch(`${c.url}/v1/analyses/${PROCESSING}`, { headers: KEY })).json()).status).toBe("completed");
  }, 60_000);

  it("resumed through A, it runs again everywhere; a reset through C sets every replica back to real time", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    await clockOf(a, { action: "resume" });
    for (const r of [b, c]) expect((await clockOf(r)).paused).toBe(false);
    await clockOf(c, { action: "advance", ms: 3_600_000 });
    const ahead = Date.parse((await clockOf(a)).now) - Date.now();
    expect(ahead).toBeGreaterThan(3_500_000);
    expect((await fetch(`${c.url}/__mock/reset`, { method: "POST" })).status).toBe(204);
    for (const r of [a, b]) expect(Math.abs(Date.parse((await clockOf(r)).now) - Date.now())).toBeLessThan(60_000);
  }, 60_000);
});
