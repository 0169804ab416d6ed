// Stage `readBody`: for an operation that takes a body, reads it with its limit: JSON, form and multipart bodies
// up to `maxBodyBytes` (kept, to be parsed), raw uploads up to the contract's 2 GiB (counted, not kept). A body over
// the limit answers 400 and the connection closes lingering (decisions L1, L2).
import { BodyTooLarge, hasBody, MAX_UPLOAD_BYTES, readBody as read } from "../http/body.js";
import type { RequestContext } from "../context.js";
import { isJsonMediaType } from "../validation.js";
import type { Outcome, StageFactory } from "../stage.js";

const STRUCTURED = /json|x-www-form-urlencoded|multipart\/form-data/i;
const EMPTY = Buffer.alloc(0);

export const readBody: StageFactory = (s) =>
  function readBody(ctx) {
    if (!s.validator.compiled(ctx.route).body) return undefined;
    if (!hasBody(ctx.req)) {
      ctx.raw = EMPTY;
      return undefined;
    }
    const ct = ctx.req.headers["content-type"];
    const structured = STRUCTURED.test(ct ?? "");
    // JSON bodies have a tighter limit derived from the contract (decision G13): parsing JSON costs far more memory.
    const limit = !structured ? MAX_UPLOAD_BYTES : isJsonMediaType(ct) ? Math.min(s.settings.maxBodyBytes, s.validator.maxJsonBodyBytes) : s.settings.maxBodyBytes;
    return readInto(ctx, structured, limit);
  };

async function readInto(ctx: RequestContext, keep: boolean, limit: number): Promise<Outcome> {
  try {
    ctx.raw = await read(ctx.req, keep, limit);
    return undefined;
  } catch (e) {
    if (e instanceof BodyTooLarge) return { ...ctx.json(400, { detail: e.message }, { Connection: "close" }), linger: true };
    throw e;
  }
}
