// MSW request handlers that answer from a simulation (simulation.ts): every request to its base URL, whatever the
// method or path, goes to `sim.fetch`, so code calling the global fetch (an app's own, or a library's) meets the
// same stateful mock in `setupServer` (vitest, jsdom, happy-dom, Node) and `setupWorker` (the browser, Storybook).
// A separate module so `msw` stays an optional peer: only who imports this needs it.
import { http, type HttpHandler } from "msw";
import { handlersWith } from "./msw-routes.js";
import type { Simulation } from "./simulation-core.js";

export function simulationHandlers(sim: Pick<Simulation, "baseUrl" | "fetch">): HttpHandler[] {
  return handlersWith(http, sim);
}
