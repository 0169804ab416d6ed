// The OAuth token endpoint of the mock (`POST /v1/oauth/token`, `POST /v1/oauth/revoke`), per grant type as the
// contract's `OAuthTokenCreate` oneOf says:
//   client_credentials   an access token for the client itself; never a refresh token
//   authorization_code   an access token and a refresh token for the signed-in user; a code works once
//   refresh_token        rotation: a new access and refresh token; the old refresh token stops working
// Access tokens are the mock's own JWTs (auth.ts, decision G1: same issuer, audience and secret as
// `npm run mock:token`), so the mock accepts them as `Authorization: Bearer` at once, in the caller's workspace.
// Revocation (RFC 7009) of an access token stops that token; of a refresh token, its whole grant: the refresh token
// and every access token issued under it. The tokens issued, codes used and revocations are a MockState (state.ts),
// each kind a RowMap (row-map.ts): with --state a row per entry, so a token request writes a few rows whatever the
// history (issue 29: the whole part was rewritten per request, 1.1 MiB after 2,800 grants). Every kind expires
// (oldest first: entries are added in time order), and grants are capped per workspace (MAX_GRANTS, decision DB11).
import { jwtVerify, type JWTPayload } from "jose";
import type { components } from "../../../../generated/schema.js";
import type { Principal } from "./auth.js";
import { JWT_AUDIENCE, JWT_ISSUER, mintToken } from "./auth.js";
import { newId } from "../events/events.js";
import { isoSeconds, randomBase62, type RandomStreams } from "../util/ids.js";
import type { TimeSource } from "../clock/clock.js";
import type { CredentialName } from "./revocation.js";
import { RowMap } from "../state/row-map.js";
import { array, DATE_TIME, object, SnapshotError, string, type Fields } from "../state/snapshot.js";
import type { MockState } from "../state/state.js";

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
/** Live grants (authorizations with a refresh token) per workspace at most: beyond, the oldest is revoked. */
export const MAX_GRANTS = 1000;

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
  clock: TimeSource;
  /** The scope of a token whose request names none. */
  defaultScope: string;
  /**
   * The token operation's `x-scope-ceiling: caller` (oauth `scopeCeiling`): a caller whose token has a `scope`
   * claim gets at most its own scopes, so a scoped token never mints a wider one (issue 29).
   */
  boundByCaller?: boolean;
  onChange?: () => void;
  /** Told each credential revoked (`jti:<id>` of an access token, `grant:<id>`): its open streams end (revocation.ts). */
  onRevoke?: (name: CredentialName) => void;
  /** The random part of grant ids and refresh tokens (a seeded simulation's), else WebCrypto. */
  random?: RandomStreams;
}

const fields = (v: unknown): Fields => object(v, []);
const grantOf = (v: unknown): Grant => {
  const r = fields(v);
  const s = (f: string) => string(r[f], [f]);
  return { id: s("id"), workspace_id: s("workspace_id"), plan: s("plan"), client_id: s("client_id"), sub: s("sub"), scope: s("scope") };
};
/** `read()`, its SnapshotError's path put under `at`. */
function within<T>(at: Array<string | number>, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SnapshotError) throw new SnapshotError([...at, ...e.path], e.reason);
    throw e;
  }
}
const epochMs = (v: unknown): number => {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new SnapshotError([], "must be a time in ms since the epoch");
  return v;
};
const refreshOf = (v: unknown) => {
  const r = fields(v);
  return { grant: string(r.grant, ["grant"]), expires: epochMs(r.expires) };
};

export class OAuthTokens implements MockState {
  readonly name = "oauth";
  private readonly grants = new RowMap<Grant>(grantOf);
  /** Live refresh tokens → their grant and expiry (epoch ms). A used or revoked one is deleted. */
  private readonly refresh = new RowMap(refreshOf);
  /** Authorization codes already exchanged → when they may be forgotten (epoch ms). */
  private readonly usedCodes = new RowMap(epochMs);
  /** Revoked access tokens, by `jti` → their `exp` (epoch ms), after which they fail anyway. */
  private readonly revokedTokens = new RowMap(epochMs);
  /** Revoked grants → when every access token issued under them has expired (epoch ms). */
  private readonly revokedGrants = new RowMap(epochMs);
  /** Kept as rows of their own with --state (row-map.ts): the state database writes these, not the snapshot. */
  readonly rows: Record<string, RowMap<unknown>> = {
    grants: this.grants,
    refresh: this.refresh,
    used_codes: this.usedCodes,
    revoked_tokens: this.revokedTokens,
    revoked_grants: this.revokedGrants,
  };
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
          id: newId("grt", this.opts.clock.now(), this.opts.random?.of(caller.workspaceId)),
          workspace_id: caller.workspaceId,
          plan: caller.plan,
          client_id: body.client_id,
          sub: MOCK_USER,
          scope,
        };
        this.grants.set(grant.id, grant);
        this.cap(grant.workspace_id);
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
      refreshToken = "rt_" + randomBase62(32, this.opts.random?.of(grant.workspace_id));
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
      this.revokeGrant(rec.grant, token);
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
    this.opts.onRevoke?.(`jti:${claims.jti}`);
  }

  /** Revokes a grant: its refresh token (`token`, a grant has one at a time) and every access token under it. */
  private revokeGrant(id: string, token: string | undefined): void {
    this.revokedGrants.set(id, this.opts.clock.now() + ACCESS_TOKEN_SECONDS * 1000);
    this.grants.delete(id);
    if (token !== undefined) this.refresh.delete(token);
    this.opts.onRevoke?.(`grant:${id}`);
  }

  /** Beyond MAX_GRANTS live grants in `workspace`, its oldest is revoked (one scan, only at the cap). */
  private cap(workspace: string): void {
    const mine = [...this.grants.values()].filter((g) => g.workspace_id === workspace);
    if (mine.length <= MAX_GRANTS) return;
    const oldest = mine[0]!.id;
    const token = [...this.refresh].find(([, r]) => r.grant === oldest)?.[0];
    this.revokeGrant(oldest, token);
  }

  /** Is a verified JWT revoked (itself, or its grant)? For auth.ts, on every bearer request. */
  isRevoked(claims: JWTPayload): boolean {
    if (this.revokedTokens.size && typeof claims.jti === "string" && this.revokedTokens.has(claims.jti)) return true;
    return this.revokedGrants.size > 0 && typeof claims.grant === "string" && this.revokedGrants.has(claims.grant);
  }

  /**
   * Forgets what can no longer matter: expired refresh tokens and their grants (a grant has one refresh token at a
   * time), codes past their validity, revocations of tokens that have expired anyway. Oldest first, stopping at the
   * first still alive: entries are added in time order, so a request's cost does not grow with what is kept.
   */
  private prune(): void {
    const now = this.opts.clock.now();
    for (let r = this.refresh.first(); r && r[1].expires <= now; r = this.refresh.first()) {
      this.refresh.delete(r[0]);
      this.grants.delete(r[1].grant);
    }
    for (const map of [this.usedCodes, this.revokedTokens, this.revokedGrants]) {
      for (let e = map.first(); e && e[1] <= now; e = map.first()) map.delete(e[0]);
    }
  }

  reset(): void {
    for (const map of Object.values(this.rows)) map.clear();
  }

  snapshot(): unknown {
    return {
      grants: [...this.grants.values()],
      refresh_tokens: [...this.refresh].map(([token, r]) => ({ token, grant: r.grant, expires_at: isoSeconds(r.expires) })),
      used_codes: [...this.usedCodes].map(([code, until]) => ({ code, forget_at: isoSeconds(until) })),
      revoked_tokens: [...this.revokedTokens].map(([jti, exp]) => ({ jti, expires_at: isoSeconds(exp) })),
      revoked_grants: [...this.revokedGrants].map(([grant, until]) => ({ grant, forget_at: isoSeconds(until) })),
    };
  }

  restore(data: unknown): void {
    const d = object(data, []);
    const items = (field: string) => array(d[field], [field]).map((v, i) => [object(v, [field, i]), [field, i] as Array<string | number>] as const);
    const time = (r: Record<string, unknown>, f: string, at: Array<string | number>) => Date.parse(string(r[f], [...at, f], DATE_TIME));
    const grants = items("grants").map(([r, at]) => within(at, () => grantOf(r)));
    const ids = new Set(grants.map((g) => g.id));
    const refresh = items("refresh_tokens").map(([r, at]) => {
      const grant = string(r.grant, [...at, "grant"]);
      if (!ids.has(grant)) throw new SnapshotError([...at, "grant"], `names no grant of "grants"`);
      return [string(r.token, [...at, "token"]), { grant, expires: time(r, "expires_at", at) }] as const;
    });
    const codes = items("used_codes").map(([r, at]) => [string(r.code, [...at, "code"]), time(r, "forget_at", at)] as const);
    const revoked = items("revoked_tokens").map(([r, at]) => [string(r.jti, [...at, "jti"]), time(r, "expires_at", at)] as const);
    // A grant id alone (the first format): forgotten once every access token under it has expired from now.
    const later = this.opts.clock.now() + ACCESS_TOKEN_SECONDS * 1000;
    const revokedGrants = array(d.revoked_grants, ["revoked_grants"]).map((g, i) =>
      typeof g === "string" ? ([g, later] as const) : ([string(object(g, ["revoked_grants", i]).grant, ["revoked_grants", i, "grant"]), time(object(g, []), "forget_at", ["revoked_grants", i])] as const),
    );
    this.reset();
    for (const g of grants) this.grants.set(g.id, g);
    for (const [k, v] of refresh) this.refresh.set(k, v);
    for (const [k, v] of codes) this.usedCodes.set(k, v);
    for (const [k, v] of revoked) this.revokedTokens.set(k, v);
    for (const [k, v] of revokedGrants) this.revokedGrants.set(k, v);
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
