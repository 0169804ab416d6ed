// Stage `authenticate`: checks the request's credentials (auth.ts: X-API-Key, then Authorization: Bearer, then the
// operation's token query parameter) and records the verdict, answering nothing: a request without valid
// credentials is still counted (`rateLimit`, per client address) before its 401 (`requireCredentials`).
import type { StageFactory } from "../stage.js";

export const authenticate: StageFactory = (s) =>
  async function authenticate(ctx) {
    const m = ctx.match;
    const auth = await s.auth.authenticate(ctx.req.headersDistinct, ctx.query, m.kind === "ok" ? m.route.tokenQuery : null);
    ctx.auth = auth;
    if (auth.ok) ctx.principal = auth.principal;
    return undefined;
  };
