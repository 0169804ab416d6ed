// Responder `oauth`: the token endpoint per grant type and revocation, for real (oauth.ts). Token answers are
// never cached (RFC 6749 §5.1); an unusable grant answers 400 with the contract's `detail` and RFC 6749's `error`.
import type { components } from "../../../../generated/schema.js";
import { byOperation } from "./by-operation.js";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const oauth = byOperation("oauth", {
  async createOAuthToken(s, ctx) {
    const out = await s.oauth.exchange(ctx.principal!, ctx.body as components["schemas"]["OAuthTokenCreate"]);
    return "error" in out ? ctx.json(400, out, NO_STORE) : ctx.json(200, out, NO_STORE);
  },
  async revokeOAuthToken(s, ctx) {
    await s.oauth.revoke((ctx.body as components["schemas"]["OAuthTokenRevoke"]).token);
    return ctx.json(200, { revoked: true });
  },
});
