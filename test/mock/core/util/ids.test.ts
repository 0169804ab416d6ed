// Secrets (API keys, webhook secrets, refresh tokens) come from WebCrypto (src/mock/core/util/ids.ts):
// never Math.random, every character of the alphabet drawn, each as likely as another.
import { afterEach, describe, expect, it, vi } from "vitest";
import { randomBase62, randomChars } from "../../../../src/mock/core/util/ids.js";
import { newId } from "../../../../src/mock/core/events/events.js";
import { createSimulation } from "../../../../src/mock/homes/node/simulation.js";

afterEach(() => vi.restoreAllMocks());

describe("random ids and secrets", () => {
  it("come from globalThis.crypto.getRandomValues, never Math.random", () => {
    const random = vi.spyOn(Math, "random");
    const webcrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    const secrets = new Set(Array.from({ length: 1000 }, () => randomBase62(32)));
    expect(secrets.size).toBe(1000);
    expect(randomBase62(32)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(random).not.toHaveBeenCalled();
    expect(webcrypto).toHaveBeenCalled();
  });

  it("draw every character of the alphabet about equally (no modulo bias: 62 does not divide 256)", () => {
    const counts = new Map<string, number>();
    for (const c of randomChars("abc", 30_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(["a", "b", "c"]);
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600); // > 8 standard deviations
  });
});

describe("resource ids (issue 47)", () => {
  it("draw their random part from WebCrypto unseeded, never Math.random", () => {
    const random = vi.spyOn(Math, "random");
    const webcrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    const ids = new Set(Array.from({ length: 1000 }, () => newId("anl", 1_700_000_000_000)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^anl_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(random).not.toHaveBeenCalled();
    expect(webcrypto).toHaveBeenCalled();
  });

  it("a simulation mints the ids and secrets of its creates without Math.random; seeded, the same ids each run", async () => {
    const run = async (seed?: number) => {
      const sim = createSimulation(seed === undefined ? {} : { seed });
      try {
        const post = (path: string, body: unknown) => sim.fetch(`${sim.baseUrl}${path}`, { method: "POST", headers: { "X-API-Key": sim.keys.pro!, "Content-Type": "application/json" }, body: JSON.stringify(body) });
        const made = (await (await post("/v1/analyses", { media_url: "https://media.example.com/a.mp3", media_type: "audio" })).json()) as { id: string };
        const board = (await (await post("/v1/boards", { name: "Ids" })).json()) as { id: string };
        const key = (await (await post("/v1/keys", { name: "Ids", environment: "test" })).json()) as { id: string; secret: string };
        await sim.clock.advance(120_000);
        const hook = (await (await post("/v1/webhooks", { url: "https://hooks.example.com/in", event_types: ["analysis.completed"] })).json()) as { id: string; secret: string };
        return [made.id, board.id, key.id, key.secret, hook.id, hook.secret];
      } finally {
        await sim.close();
      }
    };
    const random = vi.spyOn(Math, "random");
    const unseeded = await run();
    expect(random).not.toHaveBeenCalled();
    expect(unseeded).toEqual(unseeded.map(() => expect.stringMatching(/^\w{20,}$/)));
    random.mockRestore();
    const seeded = await run(47);
    expect(await run(47)).toEqual(seeded);
    expect(seeded).not.toEqual(unseeded);
  });
});
