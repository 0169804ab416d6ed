// The OAuth token endpoint of the mock (`POST /v1/oauth/token`, `POST /v1/oauth/revoke`), per grant type as the
// contract's `OAuthTokenCreate` oneOf says:
//   client_credentials   an access token for the client itself; never a refresh token
//   authorization_code   an access token and a refresh token for the signed-in user; a code works once
//   refresh_token        rotation: a new access and refresh token; the old refresh token stops working
// Access tokens are the mock's own JWTs (auth.ts, decision G1: same issuer, audience and secret as
// `npm run mock:token`), so the mock accepts them as `Authorization: Bearer` at once, in the caller's workspace.
// Revocation (RFC 7009) of an access token stops that token; of a refresh token, its whole grant: the refresh token
// and every access token issued under it. The tokens issued, codes used and revocations are a MockState (state.ts).
import { jwtVerify, type JWTPayload } from "jose";
import type { components } from "../../generated/schema.js";
import type { Principal } from "./auth.js";
import { JWT_AUDIENCE, JWT_ISSUER, mintToken } from "./auth.js";
import { newId } from "./events.js";
import { isoSeconds, randomBase62 } from "./ids.js";
import type { Clock } from "./limiter.js";
import { array, DATE_TIME, object, SnapshotError, string } from "./snapshot.js";
import type { MockState } from "./state.js";

type TokenRequest = components["schemas"]["OAuthTokenCreate"];
export type TokenResponse = components["schemas"]["OAuthToken"];

/** Lifetime of an access token, s (the contract's example: 3600). */
export const ACCESS_TOKEN_SECONDS = 3600;
/** Lifetime of a refresh token, ms: 30 days (the contract does not say). */
export const REFRESH_TOKEN_MS = 30 * 86_400_000;
/** How long a used authorization code is remembered, ms: its validity, 10 minutes (OAuthAuthorizationCodeGrant.code). */
export const CODE_MS = 10 * 60_000;
/** The signed-in user of the authorization-code grant: the default subject of `npm run mock:token`. */
export const MOCK_USER = "usr_01MockUser000000000000000";

/** A 400 of the token endpoint: RFC 6749 §5.2's `error` beside the contract's `detail`. */
export interface GrantError {
  error: "invalid_grant" | "invalid_scope";
  detail: string;
}

/** What an authorization (code) granted: refresh tokens and access tokens are issued under it. */
interface Grant {
  id: string;
  workspace_id: string;
  plan: string;
  client_id: string;
  sub: string;
  scope: string;
}

export interface OAuthOptions {
  secret: string;
  clock: Clock;
  /** The scope of a token whose request names none. */
  defaultScope: string;
  /**
   * The token operation's `x-scope-ceiling: caller` (oauth `scopeCeiling`): a caller whose token has a `scope`
   * claim gets at most its own scopes, so a scoped token never mints a wider one (issue 29).
   */
  boundByCaller?: boolean;
  onChange?: () => void;
}

export class OAuthTokens implements MockState {
  readonly name = "oauth";
  private grants = new Map<string, Grant>();
  /** Live refresh tokens → their grant and expiry (epoch ms). A used or revoked one is deleted. */
  private refresh = new Map<string, { grant: string; expires: number }>();
  /** Authorization codes already exchanged → when they may be forgotten (epoch ms). */
  private usedCodes = new Map<string, number>();
  /** Revoked access tokens, by `jti` → their `exp` (epoch ms), after which they fail anyway. */
  private revokedTokens = new Map<string, number>();
  private revokedGrants = new Set<string>();
  private readonly key: Uint8Array;
  private readonly changed: () => void;

  constructor(private readonly opts: OAuthOptions) {
    this.key = new TextEncoder().encode(opts.secret);
    this.changed = opts.onChange ?? (() => {});
  }

  /** Answers a validated token request made with `caller`'s credentials. */
  async exchange(caller: Principal, body: TokenRequest): Promise<TokenResponse | GrantError> {
    this.prune();
    const bounded = this.bound(caller, body.scope);
    if (typeof bounded !== "string" && bounded !== undefined) return bounded;
    const scope = bounded ?? this.opts.defaultScope;
    switch (body.grant_type) {
      case "client_credentials":
        return this.tokens({ id: "", workspace_id: caller.workspaceId, plan: caller.plan, client_id: body.client_id, sub: body.client_id, scope }, null);
      case "authorization_code": {
        if (this.usedCodes.has(body.code)) return { error: "invalid_grant", detail: "The authorization code has already been used." };
        this.usedCodes.set(body.code, this.opts.clock.now() + CODE_MS);
        const grant: Grant = {
          id: newId("grt", this.opts.clock.now()),
          workspace_id: caller.workspaceId,
          plan: caller.plan,
          client_id: body.client_id,
          sub: MOCK_USER,
          scope,
        };
        this.grants.set(grant.id, grant);
        return this.tokens(grant, grant.scope);
      }
      case "refresh_token":
        return this.rotate(caller, body);
    }
  }

  /**
   * The scope a request may be granted given its caller: the requested one (or undefined when none is named and the
   * caller is not scoped); with `boundByCaller` and a scoped caller, at most the caller's own scopes (its own when
   * none is named), and a wider request is refused naming what it lacks.
   */
  private bound(caller: Principal, requested: string | undefined): string | GrantError | undefined {
    if (!this.opts.boundByCaller || !caller.scopes) return requested;
    if (requested === undefined) return caller.scopes.join(" ");
    const own = new Set(caller.scopes);
    const wider = requested.split(" ").filter((x) => x && !own.has(x));
    if (wider.length) return { error: "invalid_scope", detail: `The scope is wider than the caller's own token: ${wider.join(" ")} is not among its scopes.` };
    return requested;
  }

  private async rotate(caller: Principal, body: components["schemas"]["OAuthRefreshTokenGrant"]): Promise<TokenResponse | GrantError> {
    const rec = this.refresh.get(body.refresh_token);
    const grant = rec && this.grants.get(rec.grant);
    if (!rec || !grant) return { error: "invalid_grant", detail: "The refresh token is unknown, expired, already used or revoked." };
    if (grant.client_id !== body.client_id || grant.workspace_id !== caller.workspaceId) {
      return { error: "invalid_grant", detail: "The refresh token was issued to another client." };
    }
    const granted = new Set(grant.scope.split(" "));
    const wider = body.scope?.split(" ").filter((s) => !granted.has(s)) ?? [];
    if (wider.length) return { error: "invalid_scope", detail: `The scope is wider than the one granted: ${wider.join(" ")} was not granted.` };
    this.refresh.delete(body.refresh_token);
    return this.tokens(grant, body.scope ?? grant.scope);
  }

  /** An access token (and, for a grant, a new refresh token) of `grant` with `scope`. */
  private async tokens(grant: Grant, scope: string | null): Promise<TokenResponse> {
    const now = this.opts.clock.now();
    const tokenScope = scope ?? grant.scope;
    const access = await mintToken({
      secret: this.opts.secret,
      workspaceId: grant.workspace_id,
      plan: grant.plan,
      sub: grant.sub,
      expiresInSeconds: ACCESS_TOKEN_SECONDS,
      now,
      claims: { scope: tokenScope, client_id: grant.client_id, ...(grant.id ? { grant: grant.id } : {}) },
    });
    let refreshToken: string | null = null;
    if (grant.id) {
      refreshToken = "rt_" + randomBase62(32);
      this.refresh.set(refreshToken, { grant: grant.id, expires: now + REFRESH_TOKEN_MS });
    }
    this.changed();
    return { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken, scope: tokenScope };
  }

  /**
   * Revokes `token` if the mock issued it: a refresh token revokes its grant (every access token issued under it),
   * an access token (any JWT the mock signed, `npm run mock:token`'s too) only itself. Anything else: nothing.
   */
  async revoke(token: string): Promise<void> {
    this.prune();
    const rec = this.refresh.get(token);
    if (rec) {
      this.revokedGrants.add(rec.grant);
      this.grants.delete(rec.grant);
      for (const [t, r] of this.refresh) if (r.grant === rec.grant) this.refresh.delete(t);
      this.changed();
      return;
    }
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, this.key, { algorithms: ["HS256"], issuer: JWT_ISSUER, audience: JWT_AUDIENCE, currentDate: new Date(this.opts.clock.now()) }));
    } catch {
      return; // unknown, forged or expired: nothing to revoke (RFC 7009 §2.2 answers 200 all the same)
    }
    if (typeof claims.jti !== "string" || typeof claims.exp !== "number") return;
    this.revokedTokens.set(claims.jti, claims.exp * 1000);
    this.changed();
  }

  /** Is a verified JWT revoked (itself, or its grant)? For auth.ts, on every bearer request. */
  isRevoked(claims: JWTPayload): boolean {
    if (this.revokedTokens.size && typeof claims.jti === "string" && this.revokedTokens.has(claims.jti)) return true;
    return this.revokedGrants.size > 0 && typeof claims.grant === "string" && this.revokedGrants.has(claims.grant);
  }

  /**
   * Forgets what can no longer matter: expired refresh tokens and grants left without one, codes past their
   * validity, revocations of tokens that have expired anyway.
   */
  private prune(): void {
    const now = this.opts.clock.now();
    for (const [t, r] of this.refresh) if (r.expires <= now) this.refresh.delete(t);
    const live = new Set([...this.refresh.values()].map((r) => r.grant));
    for (const id of this.grants.keys()) if (!live.has(id)) this.grants.delete(id);
    for (const [c, until] of this.usedCodes) if (until <= now) this.usedCodes.delete(c);
    for (const [j, exp] of this.revokedTokens) if (exp <= now) this.revokedTokens.delete(j);
  }

  reset(): void {
    this.grants.clear();
    this.refresh.clear();
    this.usedCodes.clear();
    this.revokedTokens.clear();
    this.revokedGrants.clear();
  }

  snapshot(): unknown {
    return {
      grants: [...this.grants.values()],
      refresh_tokens: [...this.refresh].map(([token, r]) => ({ token, grant: r.grant, expires_at: isoSeconds(r.expires) })),
      used_codes: [...this.usedCodes].map(([code, until]) => ({ code, forget_at: isoSeconds(until) })),
      revoked_tokens: [...this.revokedTokens].map(([jti, exp]) => ({ jti, expires_at: isoSeconds(exp) })),
      revoked_grants: [...this.revokedGrants],
    };
  }

  restore(data: unknown): void {
    const d = object(data, []);
    const items = (field: string) => array(d[field], [field]).map((v, i) => [object(v, [field, i]), [field, i] as Array<string | number>] as const);
    const time = (r: Record<string, unknown>, f: string, at: Array<string | number>) => Date.parse(string(r[f], [...at, f], DATE_TIME));
    const grants = items("grants").map(([r, at]): Grant => {
      const s = (f: string) => string(r[f], [...at, f]);
      return { id: s("id"), workspace_id: s("workspace_id"), plan: s("plan"), client_id: s("client_id"), sub: s("sub"), scope: s("scope") };
    });
    const ids = new Set(grants.map((g) => g.id));
    const refresh = items("refresh_tokens").map(([r, at]) => {
      const grant = string(r.grant, [...at, "grant"]);
      if (!ids.has(grant)) throw new SnapshotError([...at, "grant"], `names no grant of "grants"`);
      return [string(r.token, [...at, "token"]), { grant, expires: time(r, "expires_at", at) }] as const;
    });
    const codes = items("used_codes").map(([r, at]) => [string(r.code, [...at, "code"]), time(r, "forget_at", at)] as const);
    const revoked = items("revoked_tokens").map(([r, at]) => [string(r.jti, [...at, "jti"]), time(r, "expires_at", at)] as const);
    const revokedGrants = array(d.revoked_grants, ["revoked_grants"]).map((g, i) => string(g, ["revoked_grants", i]));
    this.grants = new Map(grants.map((g) => [g.id, g]));
    this.refresh = new Map(refresh);
    this.usedCodes = new Map(codes);
    this.revokedTokens = new Map(revoked);
    this.revokedGrants = new Set(revokedGrants);
  }
}

/**
 * The scope of a token whose request names none: every scope an operation's `x-scopes` names
 * (`analyses:read analyses:write billing:read …`), so such a token may call every operation.
 */
/** Does an operation say, with `x-scope-ceiling: caller`, that the scopes it grants are bounded by its caller's? */
export function scopeCeiling(paths: Record<string, Record<string, unknown>>): boolean {
  return Object.values(paths).some((item) => Object.values(item ?? {}).some((op) => (op as { "x-scope-ceiling"?: unknown })?.["x-scope-ceiling"] === "caller"));
}

export function defaultScope(paths: Record<string, Record<string, unknown>>): string {
  const scopes = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item ?? {})) {
      const needed = (op as { "x-scopes"?: unknown })?.["x-scopes"];
      if (Array.isArray(needed)) for (const s of needed) scopes.add(String(s));
    }
  }
  return [...scopes].sort().join(" ");
}
