// Stage `authenticate`: checks the request's credentials (auth.ts: X-API-Key, then Authorization: Bearer, then the
// operation's token query parameter) and records the verdict, answering nothing: a request without valid
// credentials is still counted (`rateLimit`, per client address) before its 401 (`requireCredentials`).
// Synchronous for API keys; a promise only while a JWT is verified (stage.ts: a promise only when it really waits).
import type { AuthResult, CredentialHeaders } from "../access/auth.js";
import type { RequestContext } from "../pipeline/context.js";
import type { StageFactory } from "../pipeline/stage.js";

export const authenticate: StageFactory = (s) =>
  function authenticate(ctx) {
    const m = ctx.match;
    const auth = s.auth.credentials(credentialHeaders(ctx.req.rawHeaders, s.auth.header), ctx.query, m.kind === "ok" ? m.route.tokenQuery : null);
    if (auth instanceof Promise) return auth.then((a) => record(ctx, a));
    return record(ctx, auth);
  };

function record(ctx: RequestContext, auth: AuthResult): undefined {
  ctx.auth = auth;
  if (auth.ok) ctx.principal = auth.principal;
  return undefined;
}

/**
 * The API-key and Authorization headers: the first value of each and how often it was sent (node:http joins
 * repeated X-API-Key values and keeps only the first Authorization, and the edge refuses a repeated credential).
 * A scan of the raw list rather than `headersDistinct`, which copies every header of every request into arrays;
 * one object of a fixed shape, not one keyed by the configured header's name (a computed key makes V8 build a
 * slow dictionary object, on every request).
 */
function credentialHeaders(raw: readonly string[], apiKeyHeader: string): CredentialHeaders {
  const c: CredentialHeaders = { apiKey: undefined, apiKeys: 0, authorization: undefined, authorizations: 0 };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === apiKeyHeader.length && name.toLowerCase() === apiKeyHeader) {
      if (c.apiKeys++ === 0) c.apiKey = raw[i + 1]!;
    } else if (name.length === 13 && name.toLowerCase() === "authorization") {
      if (c.authorizations++ === 0) c.authorization = raw[i + 1]!;
    }
  }
  return c;
}
