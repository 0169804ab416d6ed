// MSW's setupServer with the simulation's handlers: the global fetch (and a client made without a fetch of its
// own) reaches the same stateful simulation, with no port opened; requests to other origins are MSW's to judge.
import net from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClient, unwrap } from "../../../../src/client/index.js";
import { simulationHandlers } from "../../../../src/mock/homes/fetch/msw.js";
import { createSimulation } from "../../../../src/mock/homes/node/simulation.js";

const sim = createSimulation({ baseUrl: "https://api.example.test" });
const server = setupServer(...sim.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(async () => {
  server.close();
  await sim.close();
});

describe("sim.handlers with setupServer", () => {
  it("are simulationHandlers (msw.ts) of the same simulation, made once", () => {
    expect(sim.handlers).toBe(sim.handlers);
    expect(sim.handlers.map((h) => h.info.header)).toEqual(simulationHandlers(sim).map((h) => h.info.header));
  });

  it("answers the global fetch from the simulation: create, then the clock, then completed", async () => {
    const listen = vi.spyOn(net.Server.prototype, "listen");
    const api = createClient({ baseUrl: "https://api.example.test", apiKey: sim.keys.pro, retry: false });
    const created = await unwrap(api.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio" } }));
    await sim.clock.advance(120_000);
    const res = await fetch(`https://api.example.test/v1/analyses/${created.id}`, { headers: { "X-API-Key": sim.keys.pro! } });
    expect(res.headers.get("X-RateLimit-Limit")).toMatch(/^\d+$/);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    expect((await fetch("https://api.example.test/v1/analyses")).status).toBe(401);
    expect(listen).not.toHaveBeenCalled();
  });
});
