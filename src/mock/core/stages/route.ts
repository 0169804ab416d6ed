// Stage `route`: the match `matchRoute` found, answered: 404 when no operation has the path, 405 with `Allow` when
// the path has operations but not this method; otherwise the operation and its path parameters are set for the
// stages after it.
import { quote } from "../pipeline/log.js";
import type { StageFactory } from "../pipeline/stage.js";

export const route: StageFactory = () =>
  function route(ctx) {
    const m = ctx.match;
    switch (m.kind) {
      case "ok":
        ctx.route = m.route;
        ctx.params = m.params;
        return undefined;
      case "none":
        return ctx.json(404, { detail: `No operation matches ${ctx.method} ${quote(ctx.pathname)}.` });
      case "method": {
        const allow = m.allow.join(", ");
        return ctx.json(405, { detail: `${ctx.method} is not allowed on ${quote(ctx.pathname)}; use ${allow}.` }, { Allow: allow });
      }
    }
  };
