// Stage `validateBody`: parses the body `readBody` read by its Content-Type and validates it against the
// operation's request body (validation.ts): 400 when it cannot be parsed or its media type is not taken, the
// rule's status when only `x-status` rules are broken (rule-status.ts), 422 listing every violation otherwise. The parsed value is set for the responders.
import type { RequestContext } from "../pipeline/context.js";
import type { Outcome, StageFactory } from "../pipeline/stage.js";
import { BadRequest, type RequestValidator } from "../contract/validation.js";

export const validateBody: StageFactory = (s) =>
  function validateBody(ctx) {
    return ctx.raw ? check(s.validator, ctx, ctx.raw) : undefined;
  };

async function check(validator: RequestValidator, ctx: RequestContext, raw: Buffer): Promise<Outcome> {
  try {
    const checked = await validator.checkBody(ctx.route, ctx.req.headers["content-type"], raw);
    if (checked.rule) return ctx.json(checked.rule.status, { detail: checked.rule.detail });
    if (checked.issues.length) return ctx.json(422, { detail: checked.issues });
    ctx.body = checked.value;
    return undefined;
  } catch (e) {
    if (e instanceof BadRequest) return ctx.json(400, { detail: e.message });
    throw e;
  }
}
