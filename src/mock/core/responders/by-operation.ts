// A responder that answers a few operations by name (the edge's own state: keys, OAuth, billing, webhooks), each
// with its own small handler, and steps aside for every other operation, and whenever `Prefer` asks for a
// documented response other than the real one (the examples give it).
import type { RequestContext } from "../pipeline/context.js";
import type { Services } from "../pipeline/services.js";
import { only, type Outcome, type StageFactory } from "../pipeline/stage.js";

export type OperationHandler = (s: Services, ctx: RequestContext) => Outcome | Promise<Outcome>;

export function byOperation(name: string, handlers: Record<string, OperationHandler>): StageFactory {
  return (s) => {
    const table = new Map(Object.entries(handlers));
    const responder = (ctx: RequestContext) => {
      const handle = table.get(ctx.route.operationId);
      return handle && ctx.wantsRealAnswer() ? handle(s, ctx) : undefined;
    };
    Object.defineProperty(responder, "name", { value: name });
    return only(responder, (route) => table.has(route.operationId));
  };
}
