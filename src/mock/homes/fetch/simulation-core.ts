// The simulation's core (simulation.ts gives it Node's contract files and adapters, browser.ts the bundled
// contract and none): the whole mock in this process, with no port. The same services and pipeline as the gateway
// (services.ts, pipeline.ts), reached through a WHATWG fetch (in-process.ts) instead of node:http, so an app's
// tests get exactly the server's answers: `createClient({ fetch: sim.fetch })`, or MSW handlers (msw.ts) for code
// that calls the global fetch. Each simulation builds its own services: two share nothing but the contract, which
// is read-only and loaded once per process.
import type { HttpHandler } from "msw";
import type { Contract } from "../../core/contract/contract-build.js";
import { mockControls, type ClockControls, type FaultControls } from "../../core/controls/controls-api.js";
import { inProcessFetch, type InProcessFetch, type RequestHandler } from "./in-process.js";
import type { KeyRecord } from "../../core/access/key-record.js";
import { demoKeys } from "../../core/access/keys.js";
import { httpPipeline } from "../../core/pipeline/pipeline.js";
import type { Platform } from "../../core/pipeline/platform.js";
import { serveRequests } from "../../core/pipeline/serve.js";
import { buildServices, type Services } from "../../core/pipeline/services.js";

/** Fixtures as `--fixtures` takes them (docs/mock-fixtures.example.yaml): a file's path, or the document itself. */
export type SimulationFixtures = string | { workspaces: Record<string, unknown>; keys?: unknown[] };

export interface SimulationOptions {
  /** The origin the app calls (default http://localhost:4010): links in answers use it, MSW handlers match it. */
  baseUrl?: string;
  /** A team's own records and keys, checked against the contract now (FixturesError names the line). */
  fixtures?: SimulationFixtures;
  /** "paused" (default): nothing moves until `clock.advance(ms)`; "running": lifecycles step in real time. */
  clock?: "paused" | "running";
  /** Simulated time between two processing steps of a lifecycle (default 2000 ms, as MOCK_STEP_MS). */
  stepMs?: number;
  /** Keys beyond the demo keys of every plan (`pk_test_demo_<plan>`). */
  keys?: KeyRecord[];
  /** Example answers only, nothing kept (as --stateless). */
  stateless?: boolean;
  /**
   * Draws every id the simulation mints (whole: no time part) and every secret it makes from a generator of this
   * seed, one per workspace: two simulations with one seed mint the same ids in each workspace, whatever order the
   * workspaces are used in (as `avt-mock --seed`); `reset()` and `load()` start over.
   */
  seed?: string | number;
  /** Webhook URLs on loopback may be registered and are called (as --allow-loopback-webhooks). */
  allowLoopbackWebhooks?: boolean;
}

export interface Simulation {
  readonly baseUrl: string;
  /** A WHATWG fetch answered by the simulation: status, headers, body, event streams as they come. */
  readonly fetch: InProcessFetch;
  /** The demo key of each plan, by plan name (`keys.pro` is `pk_test_demo_pro`). */
  readonly keys: Readonly<Record<string, string>>;
  readonly clock: ClockControls;
  readonly faults: FaultControls;
  /**
   * MSW request handlers routing every request to `baseUrl` to this simulation, for `setupServer(...sim.handlers)`
   * and `setupWorker(...sim.handlers)` (msw, an optional peer: loaded when first read).
   */
  readonly handlers: HttpHandler[];
  /** Back to the start: the records of the fixtures (or the seeded examples), no fault rules, the clock as created. */
  reset(): Promise<void>;
  /** Starts over with these fixtures (what `reset()` returns to from then on). */
  load(fixtures: SimulationFixtures): Promise<void>;
  /** Ends open streams and pending work. */
  close(): Promise<void>;
}

/** What a runtime gives a simulation: the contract (read-only, shared) and its adapters. */
export interface SimulationRuntime {
  contract(): Contract;
  platform: Platform;
  /** MSW's handlers for a simulation (msw.ts `simulationHandlers`, with the runtime's msw). */
  handlers(sim: Pick<Simulation, "baseUrl" | "fetch">): HttpHandler[];
}

/** The services and request handler of one simulation, built from its options (a new build: its seed's streams at their start). */
function build(rt: SimulationRuntime, opts: SimulationOptions, baseUrl: string): { s: Services; handle: RequestHandler } {
  const fixtures = opts.fixtures;
  const s = buildServices(
    {
      contract: rt.contract(),
      log: null,
      stepMs: opts.stepMs,
      extraKeys: opts.keys,
      stateless: opts.stateless,
      allowLoopbackWebhooks: opts.allowLoopbackWebhooks,
      seed: opts.seed,
      ...(typeof fixtures === "string" ? { fixtures } : fixtures ? { fixturesText: { text: rt.platform.fixtures.write(fixtures), source: "fixtures" } } : {}),
    },
    rt.platform,
  );
  s.store.baseUrl = baseUrl;
  if ((opts.clock ?? "paused") === "paused") s.clock.pause();
  return { s, handle: serveRequests(s, httpPipeline(s)) };
}

/** Ends what a simulation has open: streams, WebSocket sessions, webhook deliveries. */
async function shut(s: Services): Promise<void> {
  s.live.draining = true;
  for (const ac of [...s.live.streams]) ac.abort();
  await s.webhooks.close();
  s.wss?.close();
}

/** A simulation on `rt` (simulation.ts `createSimulation` under Node, browser.ts in a browser). */
export function simulate(rt: SimulationRuntime, options: SimulationOptions = {}): Simulation {
  const baseUrl = (options.baseUrl ?? "http://localhost:4010").replace(/\/+$/, "");
  let opts = options;
  let current = build(rt, opts, baseUrl);
  const fetch = inProcessFetch((req, res) => current.handle(req, res));
  const controls = mockControls(baseUrl, fetch);
  let handlers: HttpHandler[] | undefined;
  return {
    baseUrl,
    fetch,
    get handlers() {
      return (handlers ??= rt.handlers({ baseUrl, fetch }));
    },
    keys: Object.fromEntries(demoKeys(current.s.policy).map((k) => [k.key.replace(/^pk_test_demo_/, ""), k.key])),
    clock: controls.clock,
    faults: controls.faults,
    async reset() {
      await controls.reset(); // the seed's streams restart with it
      // The server's reset leaves the clock running; a simulation created paused is paused again.
      if ((opts.clock ?? "paused") === "paused") current.s.clock.pause();
    },
    async load(fixtures) {
      const old = current;
      opts = { ...opts, fixtures };
      current = build(rt, opts, baseUrl);
      await shut(old.s);
    },
    close: () => shut(current.s),
  };
}
