// Stage `prefer`: reads `Prefer: code=…, example=…, dynamic=…` (or Prism's `__code`-style query parameters) and
// answers 400 when it asks for a status or an example the operation does not document, listing those it does
// (decision M9); likewise a `scenario=…` (or `?__scenario=…`) the operation does not take (store/scenarios.ts).
import { parsePrefer, preferProblem } from "../contract/preferences.js";
import { requestedScenario, scenarioProblem } from "../store/scenarios.js";
import type { StageFactory } from "../pipeline/stage.js";

export const prefer: StageFactory = (s) =>
  function prefer(ctx) {
    const raw = ctx.req.headers.prefer;
    const header = Array.isArray(raw) ? raw.join(",") : raw;
    const p = (ctx.prefer = parsePrefer(header, ctx.query));
    const scenario = (ctx.scenario = requestedScenario(header, ctx.query));
    if (scenario !== undefined) {
      const problem = scenarioProblem(s.store.model, ctx.route, scenario);
      if (problem) return ctx.json(400, { detail: problem });
    }
    if (p.code === undefined && p.example === undefined && p.badCode === undefined) return undefined;
    const problem = preferProblem(ctx.route, p, s.contract.deref);
    return problem ? ctx.json(400, { detail: problem }) : undefined;
  };
