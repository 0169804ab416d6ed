// Responder `webhooks`: the workspace's webhooks for real (webhooks.ts): created (then signed sample deliveries),
// listed, read, updated, deleted, tested. At most 20 per workspace (the 21st answers 409); the secret is shown once
// and never changes (decision W4); a webhook of another workspace, or a deleted one, is not found (404). Answers
// about a URL the mock will not call carry X-Mock-Notice (decision G8).
import type { components } from "../../../../generated/schema.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Reply } from "../http/reply.js";
import { listPage } from "../store/pages.js";
import type { Services } from "../pipeline/services.js";
import { publicView, type RegisteredWebhook } from "../events/webhooks.js";
import { byOperation } from "./by-operation.js";

export const webhooks = byOperation("webhooks", {
  listWebhooks: (s, ctx) => listPage(ctx, s.webhooks.list(ctx.principal!.workspaceId), (h) => s.webhooks.seqOf(h), publicView),
  createWebhook(s, ctx) {
    const ws = ctx.principal!.workspaceId;
    const max = s.settings.limits.webhooks; // MAX_WEBHOOKS_PER_WORKSPACE unless --max-webhooks says otherwise
    if (s.webhooks.list(ws).length >= max) {
      return ctx.json(409, { detail: `A workspace has at most ${max} webhooks: delete one before creating another.` });
    }
    // The body has passed the contract's validation of WebhookCreate by now.
    const refused = urlRefusal(s, ctx);
    if (refused) return refused;
    const hook = s.webhooks.register(ws, ctx.body as components["schemas"]["WebhookCreate"]);
    return ctx.json(201, hook, s.webhooks.notice(hook));
  },
  getWebhook: (s, ctx) => withHook(s, ctx, (h) => ctx.json(200, publicView(h))),
  updateWebhook: (s, ctx) =>
    withHook(s, ctx, (h) => {
      const refused = urlRefusal(s, ctx);
      if (refused) return refused;
      s.webhooks.update(h, ctx.body as components["schemas"]["WebhookUpdate"]);
      return ctx.json(200, publicView(h), s.webhooks.notice(h));
    }),
  deleteWebhook: (s, ctx) =>
    withHook(s, ctx, (h) => {
      s.webhooks.remove(h.id, h.workspace_id);
      return { status: 204, headers: {}, body: null, rate: ctx.rate };
    }),
  testWebhook: (s, ctx) => withHook(s, ctx, (h) => ctx.json(202, s.webhooks.test(h, (ctx.body as { event_type: string }).event_type), s.webhooks.notice(h))),
});

/** A 422 naming `url` when the body's URL may not be registered (a loopback URL without the flag), else null. */
function urlRefusal(s: Services, ctx: RequestContext): Reply | null {
  const url = (ctx.body as { url?: unknown } | null)?.url;
  const why = typeof url === "string" ? s.webhooks.refusal(url) : null;
  return why ? ctx.json(422, { detail: [{ loc: ["body", "url"], msg: why, type: "value_error" }] }) : null;
}

/** Runs `then` on the webhook the path names, or answers 404 when the workspace has no such webhook. */
function withHook(s: Services, ctx: RequestContext, then: (h: RegisteredWebhook) => Reply): Reply {
  const id = ctx.params.webhook_id ?? "";
  const h = s.webhooks.get(id, ctx.principal!.workspaceId);
  return h ? then(h) : ctx.json(404, { detail: `Webhook ${id} not found.` });
}
