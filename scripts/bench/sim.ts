// The in-process simulation's cost per call (issue 30): `GET /v1/analyses?limit=3` answered by createSimulation
// through MSW's setupServer (the global fetch intercepted, as a component test meets it), next to a static MSW
// handler answering the same page with `HttpResponse.json` (what teams write by hand today), and sim.fetch called
// directly (no MSW). The three alternate call by call, in a new random order each round; the median µs per call of
// each, and simulation ÷ static (how many times a static handler's cost a stateful, contract-true answer is).
// Also the weight of the simulation in a browser (issue 45): what a page that turns it on loads before its first
// request (browser-bundle.ts `firstLoad`: the entry and the chunks it imports statically, each gzipped at level 9),
// for the page with MSW's parts (@avt/mock/browser, msw's `http`, msw/browser's `setupWorker`: the goal is at most
// 200 KiB) and for @avt/mock/browser alone (msw left out, as the package ships it). Chunks loaded on demand are listed.
import { http, HttpResponse } from "msw";
import { browserBundle, firstLoad, pageBundle, type Weight } from "../lib/browser-bundle.js";
import { setupServer } from "msw/node";
import { createSimulation } from "../../src/mock/homes/node/simulation.js";
import { createGateway } from "../../src/mock/homes/node/gateway.js";
import { simulationHandlers } from "../../src/mock/homes/fetch/msw.js";
import { median, medianRatio, shuffled } from "./lib.js";

export interface SimBench {
  calls: number;
  perCallMicros: { simulationMsw: number; simulationDirect: number; staticMsw: number };
  simulationOverStatic: number;
  /** sim.fetch ÷ the same GET to the gateway over loopback HTTP (global fetch, keep-alive), call by call, no MSW. */
  directOverLoopback: number;
  /** @avt/mock/browser without msw (as the package ships it): what a page loads first, minified and gzipped (level 9). */
  browserBundle: Weight;
  /** The page turning the simulation on: @avt/mock/browser with MSW's parts (http, setupWorker), loaded first. */
  browserPage: Weight;
}

/** The goal for `browserPage.gzipped` (issue 45): 200 KiB. */
export const BROWSER_PAGE_GOAL_BYTES = 200 * 1024;

export async function simBrowserBundle(): Promise<Pick<SimBench, "browserBundle" | "browserPage">> {
  return { browserBundle: firstLoad(await browserBundle({ minify: true })), browserPage: firstLoad(await pageBundle()) };
}

export async function simBench(o: { rounds: number; calls: number }): Promise<SimBench> {
  const sim = createSimulation({ baseUrl: "https://sim.bench.invalid" });
  const headers = { "X-API-Key": sim.keys.pro! };
  const page = await (await sim.fetch(`${sim.baseUrl}/v1/analyses?limit=3`, { headers })).json();
  const server = setupServer(...simulationHandlers(sim), http.get("https://static.bench.invalid/v1/analyses", () => HttpResponse.json(page)));
  server.listen({ onUnhandledRequest: "error" });
  const variants = {
    simulationMsw: () => fetch(`${sim.baseUrl}/v1/analyses?limit=3`, { headers }),
    simulationDirect: () => sim.fetch(`${sim.baseUrl}/v1/analyses?limit=3`, { headers }),
    staticMsw: () => fetch("https://static.bench.invalid/v1/analyses?limit=3", { headers }),
  };
  type Variant = keyof typeof variants;
  const times: Record<Variant, number[]> = { simulationMsw: [], simulationDirect: [], staticMsw: [] };
  try {
    for (let round = 0; round < o.rounds; round++) {
      for (let i = 0; i < o.calls; i++) {
        for (const v of shuffled(Object.keys(variants) as Variant[])) {
          const t = performance.now();
          const res = await variants[v]();
          await res.json();
          times[v].push((performance.now() - t) * 1000);
        }
      }
    }
  } finally {
    server.close();
    await sim.close();
  }
  const m = (v: Variant) => Math.round(median(times[v]) * 10) / 10;
  const perCallMicros = { simulationMsw: m("simulationMsw"), simulationDirect: m("simulationDirect"), staticMsw: m("staticMsw") };
  return { calls: o.rounds * o.calls, perCallMicros, directOverLoopback: await directOverLoopback(o), ...(await simBrowserBundle()), simulationOverStatic: Math.round((perCallMicros.simulationMsw / perCallMicros.staticMsw) * 100) / 100 };
}

/**
 * sim.fetch against the same GET to a gateway on 127.0.0.1 (the server a Playwright run starts), alternating call by
 * call in a random order each round, after MSW's interception is gone: the median of the per-call ratios.
 */
async function directOverLoopback(o: { rounds: number; calls: number }): Promise<number> {
  const sim = createSimulation();
  const gateway = await createGateway({ log: null });
  const base = await gateway.listen(0, "127.0.0.1");
  const headers = { "X-API-Key": sim.keys.pro! };
  const variants = {
    direct: () => sim.fetch(`${sim.baseUrl}/v1/analyses?limit=3`, { headers }),
    loopback: () => fetch(`${base}/v1/analyses?limit=3`, { headers }),
  };
  const times: Record<keyof typeof variants, number[]> = { direct: [], loopback: [] };
  try {
    for (let round = 0; round < o.rounds; round++) {
      // At most 40 a round: 3 rounds stay under the pro key's 150 a minute on both (the simulation's clock is paused).
      for (let i = 0; i < Math.min(o.calls, 40); i++) {
        for (const v of shuffled(["direct", "loopback"] as const)) {
          const t = performance.now();
          const res = await variants[v]();
          if (res.status !== 200) throw new Error(`${v}: GET /v1/analyses answered ${res.status}`);
          await res.json();
          times[v].push(performance.now() - t);
        }
      }
    }
  } finally {
    await gateway.close();
    await sim.close();
  }
  return Math.round(medianRatio(times.direct, times.loopback) * 100) / 100;
}
