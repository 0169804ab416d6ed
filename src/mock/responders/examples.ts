// Responder `examples`, the last: answers from the contract's examples through Prism (prism.ts): the documented
// success, or the response and example `Prefer` names. Always answers.
import type { RequestContext } from "../context.js";
import type { Reply } from "../http/reply.js";
import type { MockAnswer, PrismBackend } from "../prism.js";
import type { Services } from "../services.js";
import type { StageFactory } from "../stage.js";

export const examples: StageFactory = (s) => {
  const retryAfterHeader = s.policy.headers.retry_after;
  return function examples(ctx) {
    const request = { path: ctx.pathname, query: ctx.query, accept: ctx.req.headers.accept };
    const prism = s.prism.loaded;
    const hit = prism?.cached(ctx.route, request, ctx.prefer);
    if (hit) return toReply(hit, ctx.rate, retryAfterHeader);
    return answer(s, ctx, prism, request);
  };
};

async function answer(s: Services, ctx: RequestContext, loaded: PrismBackend | null | undefined, request: Parameters<PrismBackend["answer"]>[1]): Promise<Reply> {
  const prism = loaded ?? (await s.prism.ready);
  return toReply(await prism.answer(ctx.route, request, ctx.prefer), ctx.rate, s.policy.headers.retry_after);
}

function toReply(a: MockAnswer, rate: readonly string[], retryAfterHeader: string): Reply {
  const headers: Record<string, string> = a.contentType ? { "Content-Type": a.contentType } : {};
  if (a.status === 429) {
    // A 429 asked for with Prefer: its Retry-After agrees with the example's retry_after.
    const retry = (a.value as { retry_after?: unknown } | null)?.retry_after;
    headers[retryAfterHeader] = String(typeof retry === "number" ? retry : 60);
  }
  return { status: a.status, headers, body: a.body, rate };
}
