// Responder `webhooks`: the webhook operations the mock implements for real: registration (then signed sample
// deliveries), a test delivery, reading and deleting a registered webhook (webhooks.ts). An id the mock never
// issued is left to the contract's examples.
import type { components } from "../../../generated/schema.js";
import type { Reply } from "../http/reply.js";
import type { RequestContext } from "../context.js";
import type { StageFactory } from "../stage.js";
import { publicView, type Webhooks } from "../webhooks.js";

export const webhooks: StageFactory = (s) =>
  function webhooks(ctx) {
    return ctx.wantsSuccess() ? answer(s.webhooks, ctx) : undefined;
  };

function answer(hooks: Webhooks, ctx: RequestContext): Reply | undefined {
  const ws = ctx.principal!.workspaceId;
  const id = ctx.params.webhook_id ?? "";
  const ok = ctx.route.successCode;
  switch (ctx.route.operationId) {
    case "createWebhook": {
      // The body has passed the contract's validation of WebhookCreate by now.
      const hook = hooks.register(ws, ctx.body as components["schemas"]["WebhookCreate"]);
      return ctx.json(ok, hook, hooks.notice(hook));
    }
    case "testWebhook": {
      const hook = hooks.get(id, ws);
      return hook ? ctx.json(ok, hooks.test(hook, (ctx.body as { event_type: string }).event_type), hooks.notice(hook)) : undefined;
    }
    case "getWebhook": {
      const hook = hooks.get(id, ws);
      return hook ? ctx.json(ok, publicView(hook)) : undefined;
    }
    case "deleteWebhook":
      return hooks.remove(id, ws) ? { status: ok, headers: {}, body: null, rate: ctx.rate } : undefined;
  }
  return undefined;
}
