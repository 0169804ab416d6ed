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
import type { RequestContext } from "./context.js";
import type { Reply } from "./http/reply.js";
import type { Services } from "./services.js";

export const TAKEN: unique symbol = Symbol("taken");
export type Outcome = Reply | typeof TAKEN | undefined;
export type Stage = (ctx: RequestContext) => Outcome | Promise<Outcome>;
export type StageFactory = (s: Services) => Stage;

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
