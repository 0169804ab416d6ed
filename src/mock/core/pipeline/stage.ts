// The contract every stage and responder of the pipeline (pipeline.ts) keeps:
//
//   a stage is a function of the request's context that returns
//     - a Reply: the answer; the request ends here and the server sends it;
//     - TAKEN: the stage has answered by itself (an event stream, a WebSocket upgrade);
//     - undefined: nothing to say; the next stage runs.
//   It may return a promise of one of these, but only when it really waits (reading a body, verifying a JWT):
//   the runner checks for a promise once per stage and stays synchronous otherwise.
//
// Stages are made once per gateway by a factory given the shared services (services.ts), so whatever a stage
// prepares (a header list, a set of operations) is made at start-up, never per request.
import type { Route } from "../contract/contract-build.js";
import type { RequestContext } from "./context.js";
import type { Reply } from "../http/reply.js";
import type { Services } from "./services.js";

export const TAKEN: unique symbol = Symbol("taken");
export type Outcome = Reply | typeof TAKEN | undefined;
export type Stage = ((ctx: RequestContext) => Outcome | Promise<Outcome>) & {
  /**
   * The operations the stage can act on, when it knows them from the contract alone: false for a route means it
   * answers nothing and changes nothing on every request to that route, so `perRoute` leaves it out there. A hint
   * only: the stage still checks for itself, as it runs in lists that are not planned per route too.
   */
  appliesTo?: (route: Route) => boolean;
};
export type StageFactory = (s: Services) => Stage;

/** `stage`, declaring the operations it can act on (Stage.appliesTo). */
export function only(stage: (ctx: RequestContext) => Outcome | Promise<Outcome>, appliesTo: (route: Route) => boolean): Stage {
  return Object.assign(stage, { appliesTo });
}

/**
 * The stages that follow `route` (ctx.route is set), each request running only those that can act on its operation:
 * the list is made once per operation. A GET of a stored list skips the WebSocket, event-stream, billing, key,
 * OAuth, webhook and Idempotency-Key stages rather than asking each whether it is its operation.
 */
export function perRoute(stages: readonly Stage[]): Stage & { planned: readonly Stage[] } {
  const plans = new Map<Route, readonly Stage[]>();
  const run: Stage = function perRoute(ctx) {
    let plan = plans.get(ctx.route);
    if (!plan) plans.set(ctx.route, (plan = stages.filter((st) => !st.appliesTo || st.appliesTo(ctx.route))));
    return runStages(plan, ctx);
  };
  // What it plans from, for the test that checks every stage declaring `appliesTo` (stage-plan.test.ts).
  return Object.assign(run, { planned: stages });
}

/** Runs `stages` from `from` until one answers; a promise only once a stage has returned one. */
export function runStages(stages: readonly Stage[], ctx: RequestContext, from = 0): Outcome | Promise<Outcome> {
  for (let i = from; i < stages.length; i++) {
    const out = stages[i]!(ctx);
    if (out === undefined) continue;
    if (out instanceof Promise) return resume(out, stages, ctx, i + 1);
    return out;
  }
  return undefined;
}

async function resume(pending: Promise<Outcome>, stages: readonly Stage[], ctx: RequestContext, next: number): Promise<Outcome> {
  const out = await pending;
  return out !== undefined ? out : runStages(stages, ctx, next);
}
