// Responder `examples`, the last: the documented success, or the response and example `Prefer` names, from the
// contract's examples. examples.ts reads them straight from the contract, as Prism would serve them; only what
// that does not settle (`Prefer: dynamic=true`, an Accept no documented media type satisfies, …) goes to Prism,
// which is loaded then, on first need. Always answers.
import type { RequestContext } from "../context.js";
import { redact } from "../log.js";
import type { Reply } from "../http/reply.js";
import type { MockAnswer } from "../prism.js";
import type { Services } from "../services.js";
import type { StageFactory } from "../stage.js";

export const examples: StageFactory = (s) => {
  const retryAfterHeader = s.policy.headers.retry_after;
  return function examples(ctx) {
    const accept = ctx.req.headers.accept;
    const fromContract = s.examples.answer(ctx.route, ctx.prefer, accept);
    if (fromContract) return toReply(fromContract, ctx.rate, retryAfterHeader);
    const request = { path: ctx.pathname, query: ctx.query, accept };
    const hit = s.prism.loaded?.cached(ctx.route, request, ctx.prefer);
    return hit ? toReply(hit, ctx.rate, retryAfterHeader) : fromPrism(s, ctx, request);
  };
};

async function fromPrism(s: Services, ctx: RequestContext, request: { path: string; query: URLSearchParams; accept: string | undefined }): Promise<Reply> {
  const prism = await s.prism.get(`${ctx.method} ${redact(ctx.pathname)}`);
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
