// Stage `scopes`: an operation's `x-scopes` (spec/README.md) are the scopes a token must hold to call it. A bearer
// token with a `scope` claim (an OAuth access token) that lacks one answers 403 `insufficient_permission`, naming
// the scope, with RFC 6750's `insufficient_scope` challenge; API keys and tokens without the claim are not limited.
import type { StageFactory } from "../pipeline/stage.js";

import { SCOPES_KEY } from "../../../contract/contract-rules.js";

export const scopes: StageFactory = () =>
  function scopes(ctx) {
    const held = ctx.principal?.scopes;
    const needed: unknown = ctx.route.op[SCOPES_KEY];
    if (!held || !Array.isArray(needed)) return undefined;
    const missing = needed.filter((s) => !held.includes(s));
    if (!missing.length) return undefined;
    const detail = `The token's scope does not allow this operation: ${ctx.route.operationId} needs ${missing.join(" ")}; the token has ${held.join(" ") || "no scope"}.`;
    return ctx.json(403, { detail, error: "insufficient_permission" }, { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${needed.join(" ")}"` });
  };
