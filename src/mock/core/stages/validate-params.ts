// Stage `validateParams`: the path, query and header parameters against the operation's schemas (validation.ts);
// 422 listing every violation with its location.
import type { StageFactory } from "../pipeline/stage.js";

export const validateParams: StageFactory = (s) =>
  function validateParams(ctx) {
    const issues = s.validator.checkParams(ctx.route, ctx.params, ctx.query, ctx.req.headers);
    return issues.length ? ctx.json(422, { detail: issues }) : undefined;
  };
