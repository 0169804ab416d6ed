// Stage `prefer`: reads `Prefer: code=…, example=…, dynamic=…` (or Prism's `__code`-style query parameters) and
// answers 400 when it asks for a status or an example the operation does not document, listing those it does
// (decision M9).
import { parsePrefer, preferProblem } from "../prism.js";
import type { StageFactory } from "../stage.js";

export const prefer: StageFactory = (s) =>
  function prefer(ctx) {
    const header = ctx.req.headers.prefer;
    const p = (ctx.prefer = parsePrefer(Array.isArray(header) ? header.join(",") : header, ctx.query));
    if (p.code === undefined && p.example === undefined && p.badCode === undefined) return undefined;
    const problem = preferProblem(ctx.route, p, s.contract.deref);
    return problem ? ctx.json(400, { detail: problem }) : undefined;
  };
