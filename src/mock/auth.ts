// Credentials, as the edge checks them: an API key (header, or the token query parameter where the operation
// lists it), or a bearer JWT (HS256, signed with the mock's dev secret; `npm run mock:token` mints one).
// Messages never contain the credential itself.
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { IncomingHttpHeaders } from "node:http";
import type { PlanName, RateLimitPolicy } from "../policy.js";
import { KEY_PREFIXES, type KeyStore } from "./keys.js";
import type { Clock } from "./limiter.js";

/** Signs and verifies the mock's JWTs unless MOCK_JWT_SECRET is set. Public on purpose: it is a local dev mock. */
export const DEFAULT_JWT_SECRET = "avt-mock-gateway-dev-secret-not-for-production";
export const JWT_ISSUER = "avt-mock-gateway";

export function jwtSecretFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.MOCK_JWT_SECRET || DEFAULT_JWT_SECRET;
}

export interface Principal {
  workspaceId: string;
  plan: PlanName;
  keyRpm: number | null;
  frozen: boolean;
  via: "api_key" | "bearer";
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; detail: string };

export interface AuthenticatorOptions {
  keys: KeyStore;
  policy: RateLimitPolicy;
  secret: string;
  clock: Clock;
  /** Header of the API-key scheme (`X-API-Key`), as the contract names it. */
  apiKeyHeader: string;
}

export const MESSAGES = {
  missing: "Missing credentials. Send an X-API-Key header or an Authorization Bearer token.",
  missingWithToken: "Missing credentials. Send an X-API-Key header, an Authorization Bearer token, or the token query parameter.",
  tokenNotHere: "Missing credentials. The token query parameter is accepted only on the WebSocket and SSE endpoints; send an X-API-Key header or an Authorization Bearer token.",
  keyPrefix: `Invalid API key: it must start with ${KEY_PREFIXES.join(" or ")}.`,
  keyUnknown: "Invalid API key: it is not a known key.",
  scheme: "The Authorization header must be `Bearer <JWT>`.",
  expired: "The bearer token has expired.",
  invalidToken: "The bearer token is invalid.",
  tokenClaims: "The bearer token lacks a valid workspace_id or plan claim.",
  frozen: "This workspace is frozen. Contact support to restore access.",
} as const;

export class Authenticator {
  private readonly key: Uint8Array;
  private readonly header: string;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.key = new TextEncoder().encode(opts.secret);
    this.header = opts.apiKeyHeader.toLowerCase();
  }

  /**
   * Finds and checks the request's credentials: the API-key header, else `Authorization: Bearer`, else (only when
   * `tokenQuery` names the operation's query scheme) the query parameter, which holds an API key or a JWT.
   */
  async authenticate(headers: IncomingHttpHeaders, query: URLSearchParams, tokenQuery: string | null): Promise<AuthResult> {
    const apiKey = headers[this.header];
    if (typeof apiKey === "string" && apiKey !== "") return this.checkKey(apiKey);
    const authz = headers.authorization;
    if (typeof authz === "string" && authz !== "") {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
      return m ? this.checkJwt(m[1]!) : { ok: false, detail: MESSAGES.scheme };
    }
    if (tokenQuery) {
      const token = query.get(tokenQuery);
      if (token) return token.startsWith("pk_") ? this.checkKey(token) : this.checkJwt(token);
      return { ok: false, detail: MESSAGES.missingWithToken };
    }
    return { ok: false, detail: query.has("token") ? MESSAGES.tokenNotHere : MESSAGES.missing };
  }

  private checkKey(key: string): AuthResult {
    if (!hasKeyPrefix(key)) return { ok: false, detail: MESSAGES.keyPrefix };
    const rec = this.opts.keys.get(key);
    if (!rec) return { ok: false, detail: MESSAGES.keyUnknown };
    return {
      ok: true,
      principal: {
        workspaceId: rec.workspace_id,
        plan: rec.plan,
        keyRpm: rec.rate_limit_rpm ?? null,
        frozen: this.opts.keys.isFrozen(rec.workspace_id),
        via: "api_key",
      },
    };
  }

  private async checkJwt(token: string): Promise<AuthResult> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        requiredClaims: ["exp", "sub"],
        currentDate: new Date(this.opts.clock.now()),
      }));
    } catch (e) {
      return { ok: false, detail: e instanceof joseErrors.JWTExpired ? MESSAGES.expired : MESSAGES.invalidToken };
    }
    const ws = payload.workspace_id;
    if (typeof ws !== "string" || !/^ws_[0-9A-Za-z]{8,40}$/.test(ws)) return { ok: false, detail: MESSAGES.tokenClaims };
    const plan = typeof payload.plan === "string" ? payload.plan : this.opts.keys.planOf(ws);
    if (!plan || !this.opts.policy.plans[plan]) return { ok: false, detail: MESSAGES.tokenClaims };
    return {
      ok: true,
      principal: { workspaceId: ws, plan, keyRpm: null, frozen: payload.frozen === true || this.opts.keys.isFrozen(ws), via: "bearer" },
    };
  }
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
  /** Seconds of validity from `now`; negative for an already expired token. */
  expiresInSeconds: number;
  /** Epoch ms; defaults to the real time. */
  now?: number;
}

/** Mints a bearer JWT the gateway accepts (used by `npm run mock:token` and tests). */
export async function mintToken(o: MintOptions): Promise<string> {
  const iat = Math.floor((o.now ?? Date.now()) / 1000);
  const claims: Record<string, unknown> = { workspace_id: o.workspaceId };
  if (o.plan) claims.plan = o.plan;
  if (o.frozen) claims.frozen = true;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(JWT_ISSUER)
    .setSubject(o.sub ?? "usr_01MockUser000000000000000")
    .setIssuedAt(Math.min(iat, iat + o.expiresInSeconds))
    .setExpirationTime(iat + o.expiresInSeconds)
    .sign(new TextEncoder().encode(o.secret));
}
