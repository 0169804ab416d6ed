// Responder `examples`, the last: the documented success, or the response and example `Prefer` names, from the
// contract's examples. examples.ts reads them straight from the contract, as Prism would serve them; only what
// that does not settle (`Prefer: dynamic=true`, an Accept no documented media type satisfies, …) goes to Prism,
// which is loaded then, on first need. Always answers.
import type { Json, Route } from "../contract/contract-build.js";
import type { RequestContext } from "../pipeline/context.js";
import { redact } from "../pipeline/log.js";
import type { Reply } from "../http/reply.js";
import type { MockAnswer } from "../contract/preferences.js";
import type { Services } from "../pipeline/services.js";
import type { StageFactory } from "../pipeline/stage.js";
import { askedTooMany } from "../access/rate-answers.js";
import { readRequestId } from "../../../contract/request-id.js";

export const examples: StageFactory = (s) => {
  const retryAfterHeader = s.policy.headers.retry_after;
  const required = requiredHeaders(s);
  const reply = (ctx: RequestContext, a: MockAnswer): Reply => {
    if (a.status === 429 && ctx.decision) {
      const refused = askedTooMany(s.policy, ctx.decision, a.value, s.clock.now());
      return { ...refused, headers: { ...required(ctx.route, a.status), ...refused.headers } };
    }
    return toReply(a, ctx.rate, retryAfterHeader, required(ctx.route, a.status));
  };
  return function examples(ctx) {
    const accept = ctx.req.headers.accept;
    const fromContract = s.examples.answer(ctx.route, ctx.prefer, accept);
    if (fromContract) return reply(ctx, ownId(ctx, fromContract));
    const request = { path: ctx.pathname, query: ctx.query, accept };
    const hit = s.prism.loaded?.cached(ctx.route, request, ctx.prefer);
    return hit ? reply(ctx, hit) : fromPrism(s, ctx, request).then((a) => reply(ctx, a));
  };
};

/**
 * An example answering a read by id (`GET /v1/analyses/{analysis_id}`) names the id asked for, not the example's:
 * `Prefer: example=failed` shows the failed state of the resource the screen is about. Only when the example's
 * `id` has the same prefix (`anl_`), so a body of another kind keeps its own.
 */
function ownId(ctx: RequestContext, a: MockAnswer): MockAnswer {
  const last = /\{([^}]+)\}$/.exec(ctx.route.template)?.[1];
  const asked = last ? ctx.params[last] : undefined;
  const v = a.value as { id?: unknown } | null;
  if (ctx.method !== "GET" || !asked || a.status >= 300 || typeof v?.id !== "string" || v.id === asked) return a;
  const prefix = (id: string) => id.slice(0, id.indexOf("_") + 1);
  if (!prefix(v.id) || prefix(v.id) !== prefix(asked)) return a;
  const value = { ...v, id: asked };
  return { ...a, value, body: Buffer.from(JSON.stringify(value)) };
}

async function fromPrism(s: Services, ctx: RequestContext, request: { path: string; query: URLSearchParams; accept: string | undefined }): Promise<MockAnswer> {
  const prism = await s.prism.get(`${ctx.method} ${redact(ctx.pathname)}`);
  const { dynamicItems: items, dynamicLength: length } = s.settings.limits;
  return prism.answer(ctx.route, request, ctx.prefer, { items, length });
}

/**
 * The headers a response of the contract requires that no other part of the gateway sends (the CORS, rate-limit
 * and request-id headers are everyone's), each with the one value its schema names (`const`, the first of its `enum` or
 * `examples`): `WWW-Authenticate` on a 401 asked for with `Prefer`, `Upgrade` on a 426. Worked out once per
 * operation and status.
 */
function requiredHeaders(s: Services): (route: Route, status: number) => Record<string, string> | undefined {
  const everyone = [...s.head.filter((_, i) => i % 2 === 0), ...Object.values(s.policy.headers), readRequestId(s.contract.doc).header];
  const sentByAll = new Set(everyone.map((h) => h.toLowerCase()));
  const known = new Map<Route, Map<number, Record<string, string> | undefined>>();
  const build = (route: Route, status: number) => {
    const out: Record<string, string> = {};
    for (const [name, raw] of Object.entries<Json>(s.contract.deref(route.op.responses?.[status])?.headers ?? {})) {
      const h = s.contract.deref(raw);
      const schema = s.contract.deref(h?.schema) ?? {};
      const value = schema.const ?? schema.enum?.[0] ?? schema.examples?.[0] ?? h?.example;
      if (h?.required === true && !sentByAll.has(name.toLowerCase()) && value !== undefined) out[name] = String(value);
    }
    return Object.keys(out).length ? out : undefined;
  };
  return (route, status) => {
    let byStatus = known.get(route);
    if (!byStatus) known.set(route, (byStatus = new Map()));
    if (!byStatus.has(status)) byStatus.set(status, build(route, status));
    return byStatus.get(status);
  };
}

function toReply(a: MockAnswer, rate: readonly string[], retryAfterHeader: string, required: Record<string, string> | undefined): Reply {
  const headers: Record<string, string> = required ? { ...required } : {};
  if (a.contentType) headers["Content-Type"] = a.contentType;
  if (a.status === 429) {
    // A 429 asked for with Prefer: its Retry-After agrees with the example's retry_after.
    const retry = (a.value as { retry_after?: unknown } | null)?.retry_after;
    headers[retryAfterHeader] = String(typeof retry === "number" ? retry : 60);
  }
  return { status: a.status, headers, body: a.body, rate };
}
