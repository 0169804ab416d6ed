// The JWT secret on a shared host (issue 22, decision SH4). The dev default (auth.ts) is public: anyone who can
// reach a mock listening beyond loopback could mint a token for any workspace with it. So:
//  - `Gateway.listen` refuses an address beyond loopback while the secret is the public default
//    (PublicSecretError), whatever started it;
//  - `npm start` on such an address without MOCK_JWT_SECRET makes a random secret for this process and prints the
//    command that gives it to `npm run mock:token`.
import { randomBytes } from "node:crypto";
import { isLoopbackAddress } from "../../../loopback.js";
import { DEFAULT_JWT_SECRET } from "../../core/access/auth.js";

export class PublicSecretError extends Error {}

/**
 * Is `host` reachable only from this machine? `localhost`, 127.0.0.0/8, `::1` and their IPv4-mapped form; every
 * other name or address (`0.0.0.0`, `::`, a LAN address, a name that may resolve anywhere) is beyond loopback.
 */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackAddress(host);
}

/** Bytes a JWT secret needs beyond loopback: HS256's key should be as long as its hash (RFC 7518 §3.2). */
export const MIN_SECRET_BYTES = 32;

/**
 * Throws PublicSecretError when listening on `host` would expose a gateway that signs with the public secret, or
 * with one shorter than MIN_SECRET_BYTES (issue 29: a 1-character MOCK_JWT_SECRET was accepted on 0.0.0.0).
 */
export function refusePublicSecret(host: string, secret: string): void {
  if (isLoopbackHost(host)) return;
  const bytes = Buffer.byteLength(secret);
  if (secret !== DEFAULT_JWT_SECRET && bytes < MIN_SECRET_BYTES) {
    throw new PublicSecretError(
      `Refusing to listen on ${host}: MOCK_JWT_SECRET is ${bytes} byte${bytes === 1 ? "" : "s"}, and beyond loopback it must be at least ${MIN_SECRET_BYTES} (anyone could guess a shorter one and mint tokens). ` +
        "Use a longer secret (openssl rand -base64 32), or listen on 127.0.0.1.",
    );
  }
  if (secret !== DEFAULT_JWT_SECRET) return;
  throw new PublicSecretError(
    `Refusing to listen on ${host} with the public development JWT secret: anyone who can reach it could mint tokens for any workspace. ` +
      "Set MOCK_JWT_SECRET (or the jwtSecret option), or listen on 127.0.0.1.",
  );
}

/** The secret `npm start` uses: MOCK_JWT_SECRET; else, beyond loopback, a random one made for this process. */
export function startSecret(host: string, env: NodeJS.ProcessEnv): { secret: string | undefined; generated: boolean } {
  if (env.MOCK_JWT_SECRET) return { secret: env.MOCK_JWT_SECRET, generated: false };
  if (isLoopbackHost(host)) return { secret: undefined, generated: false };
  return { secret: randomBytes(32).toString("base64url"), generated: true };
}
