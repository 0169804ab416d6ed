// @vitest-environment jsdom
// createSimulation under vitest's jsdom environment (the default of most React setups), where the realm's
// Uint8Array is jsdom's and Node's Buffer is not an instance of it: a keyed POST (hashed for its idempotency
// fingerprint), its replay, a fault rule's 429, the event stream and the clock all answer as under Node.
import { afterEach, describe, expect, it } from "vitest";
import { createSimulation, type Simulation } from "../../../../src/mock/homes/node/simulation.js";

const MEDIA = JSON.stringify({ media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" });
let s: Simulation;
afterEach(() => s?.close());

describe("createSimulation under jsdom", () => {
  it("runs in jsdom's realm", () => {
    expect(typeof document).toBe("object");
    expect(new Uint8Array(1) instanceof Uint8Array).toBe(true);
  });

  it("answers a POST with an Idempotency-Key, replays it, a fault rule's 429, the stream and the clock", async () => {
    s = createSimulation();
    const headers = { "X-API-Key": s.keys.pro!, "Content-Type": "application/json", "Idempotency-Key": "jsdom-1" };
    const created = await s.fetch(`${s.baseUrl}/v1/analyses`, { method: "POST", headers, body: MEDIA });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const again = await s.fetch(`${s.baseUrl}/v1/analyses`, { method: "POST", headers, body: MEDIA });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(id);

    await s.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
    const limited = await s.fetch(`${s.baseUrl}/v1/analyses`, { method: "POST", headers: { ...headers, "Idempotency-Key": "jsdom-2" }, body: MEDIA });
    expect(limited.status).toBe(429);

    const events = await s.fetch(`${s.baseUrl}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": s.keys.pro!, Accept: "text/event-stream" } });
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/event: status/);
    await s.clock.advance(120_000);
    let text = first;
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    expect(text).toMatch(/event: completed/);
  });
});
