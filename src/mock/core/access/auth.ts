// Credentials, as the edge checks them: an API key (header, or the token query parameter where the operation
// lists it), or a bearer JWT (HS256, signed with the mock's dev secret; `npm run mock:token` mints one).
// Messages never contain the credential itself.
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import type { PlanName, RateLimitPolicy } from "../../../contract/policy.js";
import { KEY_PREFIXES, type KeyStore } from "./keys.js";
import { systemClock, type TimeSource } from "../clock/clock.js";
import type { CredentialName } from "./revocation.js";

/** Signs and verifies the mock's JWTs unless MOCK_JWT_SECRET is set. Public on purpose: it is a local dev mock. */
export const DEFAULT_JWT_SECRET = "avt-mock-gateway-dev-secret-not-for-production";
export const JWT_ISSUER = "avt-mock-gateway";

export function jwtSecretFromEnv(env: NodeJS.ProcessEnv = typeof process === "undefined" ? {} : process.env): string {
  return env.MOCK_JWT_SECRET || DEFAULT_JWT_SECRET;
}

export interface Principal {
  workspaceId: string;
  plan: PlanName;
  /**
   * The key's own per-minute limit (`rate_limit_rpm`) and the name of the bucket it is counted in (never the key
   * itself); null for bearer tokens and keys without a limit.
   */
  key: { bucket: string; rpm: number } | null;
  /** The id of the API key that authenticated the request (`key_…`); null for bearer tokens. */
  keyId: string | null;
  frozen: boolean;
  via: "api_key" | "bearer";
  /**
   * The scopes of a bearer token with a `scope` claim (an OAuth access token), or of a key made by a scoped caller
   * (`scopes`, issue 47); absent: unrestricted.
   */
  scopes?: readonly string[];
  /**
   * The names under which the credential can be revoked (revocation.ts): `key:<id>`, or a JWT's `jti:` and its
   * OAuth grant's `grant:`. An open stream is held under them and ends when one is revoked (issue 47).
   */
  revocable?: readonly CredentialName[];
}

/**
 * Machine-readable `error` of a 401 or 403 body, beside its `detail` (issue 15; decisions G3, W11, W13):
 * `key_revoked` for a key revoked with `DELETE /v1/keys/{key_id}`, `token_revoked` for a bearer token revoked with
 * `POST /v1/oauth/revoke`, `token_expired` for a JWT past `exp` or a key past `expires_at`.
 */
export type AuthErrorCode =
  | "missing_credentials"
  | "invalid_credentials"
  | "token_expired"
  | "key_revoked"
  | "token_revoked"
  | "insufficient_permission"
  | "workspace_frozen";

export interface AuthFailure {
  ok: false;
  error: AuthErrorCode;
  detail: string;
  /** The `WWW-Authenticate` value of the 401 (one of CHALLENGES). */
  challenge: string;
}

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

/** Request headers as node:http's `req.headersDistinct` gives them: lower-case names, every value kept. */
export type DistinctHeaders = NodeJS.Dict<string[]>;

/** The credential headers of a request: the first value of each, and how many times it was sent. */
export interface CredentialHeaders {
  apiKey: string | undefined;
  apiKeys: number;
  authorization: string | undefined;
  authorizations: number;
}

export interface AuthenticatorOptions {
  keys: KeyStore;
  policy: RateLimitPolicy;
  secret: string;
  clock: TimeSource;
  /** Header of the API-key scheme (`X-API-Key`), as the contract names it. */
  apiKeyHeader: string;
  /** Whether a verified JWT has been revoked (`POST /v1/oauth/revoke`); none are without it. */
  isRevoked?: (claims: JWTPayload) => boolean;
}

export const MESSAGES = {
  missing: "Missing credentials. Send an X-API-Key header or an Authorization Bearer token.",
  missingWithToken: "Missing credentials. Send an X-API-Key header, an Authorization Bearer token, or the token query parameter.",
  tokenNotHere: "Missing credentials. The token query parameter is accepted only on the WebSocket and SSE endpoints; send an X-API-Key header or an Authorization Bearer token.",
  keyPrefix: `Invalid API key: it must start with ${KEY_PREFIXES.join(" or ")}.`,
  keyUnknown: "Invalid API key: it is not a known key.",
  keyRevoked: "This API key has been revoked. Create a new key.",
  keyExpired: "This API key has expired. Create a new key.",
  tokenRevoked: "The bearer token has been revoked.",
  scheme: "The Authorization header must be `Bearer <JWT>`.",
  expired: "The bearer token has expired.",
  invalidToken: "The bearer token is invalid.",
  tokenClaims: "The bearer token lacks a valid workspace_id or plan claim.",
  duplicateKey: "Send one X-API-Key header; this request has several.",
  duplicateAuthorization: "Send one Authorization header; this request has several.",
  frozen: "This workspace is frozen. Contact support to restore access.",
} as const;

/**
 * `WWW-Authenticate` of each kind of 401 (RFC 9110 §11.6.1, RFC 6750 §3): the two values the contract's
 * `WWW-Authenticate` header allows (decisions B4, G23). Every 401 offers both schemes, Bearer first; a refused
 * bearer token (in Authorization or `?token=`, expired included, or two Authorization headers) adds
 * `error="invalid_token"` after the Bearer realm. Nothing else gets an error code (RFC 6750 §3.1: none when the
 * request lacks authentication information); the body's `error` tells the finer reason.
 */
const CHALLENGE = 'Bearer realm="api", ApiKey realm="api", header="X-API-Key"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="api", error="invalid_token", ApiKey realm="api", header="X-API-Key"';
export const CHALLENGES = {
  missing: CHALLENGE,
  invalidToken: INVALID_TOKEN_CHALLENGE,
  invalidKey: CHALLENGE,
  duplicateKey: CHALLENGE,
  duplicateAuthorization: INVALID_TOKEN_CHALLENGE,
} as const;

/** The `aud` of the mock's dev tokens: the API they are for. */
export const JWT_AUDIENCE = "avt-api";
/** Longest accepted lifetime of a token, `exp - iat`: a day (`npm run mock:token` mints at most that). */
export const JWT_MAX_LIFETIME_SECONDS = 86_400;
/** How far `iat` and `nbf` may lie ahead of the gateway's clock (the issuer's clock may run ahead). */
export const JWT_CLOCK_SKEW_SECONDS = 60;

const fail = (error: AuthErrorCode, detail: string, challenge: string): AuthFailure => ({ ok: false, error, detail, challenge });
const badToken = (detail: string) => fail("invalid_credentials", detail, CHALLENGES.invalidToken);

export class Authenticator {
  private readonly key: Uint8Array;
  /** The API-key header's name, lower-case (`x-api-key`). */
  readonly header: string;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.key = new TextEncoder().encode(opts.secret);
    this.header = opts.apiKeyHeader.toLowerCase();
  }

  /**
   * Finds and checks the request's credentials: the API-key header, else `Authorization: Bearer`, else (only when
   * `tokenQuery` names the operation's query scheme) the query parameter, which holds an API key or a JWT.
   * A header sent more than once is refused rather than one of its values picked (node:http would join repeated
   * X-API-Key values with ", " and keep only the first Authorization). Synchronous unless a JWT is verified
   * (jose's verification is asynchronous): an API key, the common case, costs the request no promise.
   */
  authenticate(headers: DistinctHeaders, query: URLSearchParams, tokenQuery: string | null): AuthResult | Promise<AuthResult> {
    const apiKeys = headers[this.header];
    const authzs = headers.authorization;
    const found = { apiKey: apiKeys?.[0], apiKeys: apiKeys?.length ?? 0, authorization: authzs?.[0], authorizations: authzs?.length ?? 0 };
    return this.credentials(found, query, tokenQuery);
  }

  /** `authenticate`, given the credential headers already found (the stage scans the raw header list for them). */
  credentials(c: CredentialHeaders, query: URLSearchParams, tokenQuery: string | null): AuthResult | Promise<AuthResult> {
    if (c.apiKeys > 1) return fail("invalid_credentials", MESSAGES.duplicateKey, CHALLENGES.duplicateKey);
    if (c.authorizations > 1) return fail("invalid_credentials", MESSAGES.duplicateAuthorization, CHALLENGES.duplicateAuthorization);
    if (c.apiKey) return this.checkKey(c.apiKey);
    const authz = c.authorization;
    if (authz) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
      return m ? this.checkJwt(m[1]!) : fail("invalid_credentials", MESSAGES.scheme, CHALLENGES.missing);
    }
    if (tokenQuery) {
      const token = query.get(tokenQuery);
      if (token) return token.startsWith("pk_") ? this.checkKey(token) : this.checkJwt(token);
      return fail("missing_credentials", MESSAGES.missingWithToken, CHALLENGES.missing);
    }
    return fail("missing_credentials", query.has("token") ? MESSAGES.tokenNotHere : MESSAGES.missing, CHALLENGES.missing);
  }

  private checkKey(key: string): AuthResult {
    if (!hasKeyPrefix(key)) return fail("invalid_credentials", MESSAGES.keyPrefix, CHALLENGES.invalidKey);
    const keys = this.opts.keys;
    const rec = keys.get(key);
    if (!rec) return fail("invalid_credentials", MESSAGES.keyUnknown, CHALLENGES.invalidKey);
    if (rec.revoked_at) return fail("key_revoked", MESSAGES.keyRevoked, CHALLENGES.invalidKey);
    if (rec.expires_at && Date.parse(rec.expires_at) <= this.opts.clock.now()) return fail("token_expired", MESSAGES.keyExpired, CHALLENGES.invalidKey);
    keys.touch(rec);
    const rpm = rec.rate_limit_rpm;
    return {
      ok: true,
      principal: {
        workspaceId: rec.workspace_id,
        plan: rec.plan,
        key: rpm == null ? null : { bucket: keys.bucketOf(key)!, rpm },
        keyId: rec.id,
        frozen: keys.isFrozen(rec.workspace_id),
        via: "api_key",
        ...(rec.scopes ? { scopes: rec.scopes } : {}),
        revocable: [`key:${rec.id}`],
      },
    };
  }

  /**
   * Verifies a JWT with jose: HS256 with the dev secret, `iss` and `aud` the mock's fixed values, `sub`, `iat`
   * and `exp` present, `iat`/`nbf` at most JWT_CLOCK_SKEW_SECONDS ahead, age at most JWT_MAX_LIFETIME_SECONDS.
   * Two checks jose has no option for are made here: `exp` without the skew (an expired token is expired), and
   * the lifetime `exp - iat`, so a token cannot be minted for the year 2200.
   */
  private async checkJwt(token: string): Promise<AuthResult> {
    const now = this.opts.clock.now() / 1000;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        requiredClaims: ["exp", "iat", "sub"],
        maxTokenAge: JWT_MAX_LIFETIME_SECONDS,
        clockTolerance: JWT_CLOCK_SKEW_SECONDS,
        currentDate: new Date(this.opts.clock.now()),
      }));
    } catch (e) {
      return e instanceof joseErrors.JWTExpired ? fail("token_expired", MESSAGES.expired, CHALLENGES.invalidToken) : badToken(MESSAGES.invalidToken);
    }
    const exp = payload.exp as number;
    if (exp <= now) return fail("token_expired", MESSAGES.expired, CHALLENGES.invalidToken);
    if (exp - (payload.iat as number) > JWT_MAX_LIFETIME_SECONDS) return badToken(MESSAGES.invalidToken);
    if (this.opts.isRevoked?.(payload)) return fail("token_revoked", MESSAGES.tokenRevoked, CHALLENGES.invalidToken);
    const ws = payload.workspace_id;
    if (typeof ws !== "string" || !/^ws_[0-9A-Za-z]{8,40}$/.test(ws)) return badToken(MESSAGES.tokenClaims);
    // A known workspace's own plan wins; the claim only names the plan of a workspace the mock does not know (M5).
    const plan = this.opts.keys.planOf(ws) ?? payload.plan;
    if (typeof plan !== "string" || !Object.hasOwn(this.opts.policy.plans, plan)) return badToken(MESSAGES.tokenClaims);
    return {
      ok: true,
      principal: {
        workspaceId: ws,
        plan,
        key: null,
        keyId: null,
        frozen: payload.frozen === true || this.opts.keys.isFrozen(ws),
        via: "bearer",
        ...(typeof payload.scope === "string" ? { scopes: payload.scope.split(" ").filter(Boolean) } : {}),
        revocable: jwtNames(payload),
      },
    };
  }
}

/** The names a verified JWT is revoked by: its `jti`, and the `grant` it was issued under. */
function jwtNames(payload: Record<string, unknown>): CredentialName[] {
  const names: CredentialName[] = [];
  if (typeof payload.jti === "string") names.push(`jti:${payload.jti}`);
  if (typeof payload.grant === "string") names.push(`grant:${payload.grant}`);
  return names;
}

/** A loop, not `.some(closure)`: this runs on every request (see limiter.ts on closures under tsx). */
function hasKeyPrefix(key: string): boolean {
  for (const p of KEY_PREFIXES) if (key.startsWith(p)) return true;
  return false;
}

export interface MintOptions {
  secret: string;
  workspaceId: string;
  plan?: PlanName;
  sub?: string;
  frozen?: boolean;
  /** Seconds of validity from `now`, at most JWT_MAX_LIFETIME_SECONDS; negative for an already expired token. */
  expiresInSeconds: number;
  /** Epoch ms: the gateway's clock; by default the system's (`npm run mock:token`, which runs outside any gateway). */
  now?: number;
  /** More claims (an OAuth access token's `scope`, `client_id`, `grant`); never the registered ones above. */
  claims?: Record<string, unknown>;
}

/** Mints a bearer JWT the gateway accepts (used by `npm run mock:token` and tests): `iss`, `aud`, `sub`, `iat`, `exp`. */
export async function mintToken(o: MintOptions): Promise<string> {
  const iat = Math.floor((o.now ?? systemClock.now()) / 1000);
  const claims: Record<string, unknown> = { ...o.claims, workspace_id: o.workspaceId };
  if (o.plan) claims.plan = o.plan;
  if (o.frozen) claims.frozen = true;
  if (o.expiresInSeconds > JWT_MAX_LIFETIME_SECONDS) throw new RangeError(`a token may live at most ${JWT_MAX_LIFETIME_SECONDS} seconds (24 hours)`);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setSubject(o.sub ?? "usr_01MockUser000000000000000")
    // A unique id, so any token can be revoked (POST /v1/oauth/revoke) without the others of its subject.
    .setJti(globalThis.crypto.randomUUID())
    .setIssuedAt(Math.min(iat, iat + o.expiresInSeconds))
    .setExpirationTime(iat + o.expiresInSeconds)
    .sign(new TextEncoder().encode(o.secret));
}
