// Stage `apiPrefix`: a path outside the API's prefixes (those of the rate-limited operations: /v1, /aria, /ws)
// answers 404 at once, without credentials or counting: no operation can match it.
import { quote } from "../pipeline/log.js";
import { json } from "../http/reply.js";
import type { StageFactory } from "../pipeline/stage.js";

export const apiPrefix: StageFactory = (s) => {
  const prefixes = s.contract.rateLimitedPrefixes;
  const pairs = prefixes.map((prefix) => [prefix, prefix + "/"] as const);
  const listed = prefixes.join(", ");
  return function apiPrefix(ctx) {
    // A loop rather than `.some(closure)`: this runs on every request (see limiter.ts on closures under tsx).
    for (const [prefix, under] of pairs) if (ctx.pathname === prefix || ctx.pathname.startsWith(under)) return undefined;
    return json(404, { detail: `Not found: ${quote(ctx.pathname)}. The API lives under ${listed}; see /swagger.html.` });
  };
};
