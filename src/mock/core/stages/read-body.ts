// Stage `readBody`: reads the request body with the limit of its kind, after checking that the operation takes a
// body of that media type at all (decision G21):
//   JSON                      the contract's JSON limit (7 MiB, bounds.ts; at most `maxBodyBytes`), kept to parse
//   forms and multipart       `maxBodyBytes` (64 MiB), kept to parse
//   any other declared type   the contract's 2 GiB (application/octet-stream uploads), counted, never kept
// A body of a media type the operation does not declare, without a Content-Type, or sent to an operation that takes
// none, answers 400 (E2; the spec's table has no 415) before a byte of it is read. A chunked body, whose length is
// unknown, is read with a limit of 0 there: one that ends at once is no body; the first byte of one that does not
// answers the same 400. Over the limit, by Content-Length at once, or as soon as the count passes it: 400 (L1, G13).
// Either way the connection then closes lingering (L2, serve.ts), so the rest is never read. `Expect: 100-continue`
// is answered only here, once the body is wanted (http/server.ts), so a refused body is never invited.
import { BodyTooLarge, hasBody, MAX_UPLOAD_BYTES, readBody as read } from "../http/body.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Outcome, StageFactory } from "../pipeline/stage.js";

const EMPTY = Buffer.alloc(0);

export const readBody: StageFactory = (s) => {
  // JSON bodies have a tighter limit derived from the contract (decision G13): parsing JSON costs far more memory.
  const limits = { json: Math.min(s.settings.maxBodyBytes, s.validator.maxJsonBodyBytes), form: s.settings.maxBodyBytes, raw: MAX_UPLOAD_BYTES };
  return function readBody(ctx) {
    const media = s.validator.bodyMedia(ctx.route, ctx.req.headers["content-type"]);
    if (!hasBody(ctx.req)) {
      if (media.kind !== "none") ctx.raw = EMPTY;
      return undefined;
    }
    switch (media.kind) {
      case "none":
        return refuse(ctx, `${ctx.method} ${ctx.route.template} takes no request body.`, media.kind);
      case "refused":
        return refuse(ctx, media.detail, media.kind);
      default:
        return readInto(ctx, media.kind !== "raw", limits[media.kind]);
    }
  };
};

/**
 * The 400 of a body the operation cannot take: at once when it has a length, or at its first byte when chunked (a
 * chunked body that ends at once is no body: the request goes on as one without).
 */
function refuse(ctx: RequestContext, detail: string, kind: "none" | "refused"): Outcome | Promise<Outcome> {
  const answer = () => ctx.json(400, { detail }, { Connection: "close" });
  // A client waiting for 100 Continue has announced a body: it is refused before it is sent.
  if (ctx.req.headers["transfer-encoding"] === undefined || expectsContinue(ctx)) return answer();
  return readInto(ctx, false, 0).then((refused) => {
    if (refused) return answer();
    ctx.raw = kind === "refused" ? EMPTY : null;
    return undefined;
  });
}

function expectsContinue(ctx: RequestContext): boolean {
  return ctx.req.headers.expect?.toLowerCase() === "100-continue";
}

async function readInto(ctx: RequestContext, keep: boolean, limit: number): Promise<Outcome> {
  if (expectsContinue(ctx)) ctx.res?.writeContinue();
  try {
    ctx.raw = await read(ctx.req, keep, limit);
    return undefined;
  } catch (e) {
    if (e instanceof BodyTooLarge) return ctx.json(400, { detail: e.message }, { Connection: "close" });
    throw e;
  }
}
