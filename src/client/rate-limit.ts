// The rate-limit headers every response under /v1, /aria and /ws carries. The names are the contract's
// (`x-rate-limit-policy.headers`, keyed the same way); the type check below fails to compile if one of them
// is not a header component of the generated types, and test/client/contract-names.test.ts compares the
// whole map with the contract.
import type { components } from "../../generated/schema.js";

export const RATE_LIMIT_HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
  daily_limit: "X-RateLimit-Daily-Limit",
  daily_remaining: "X-RateLimit-Daily-Remaining",
  retry_after: "Retry-After",
} as const satisfies Record<string, keyof components["headers"]>;

export interface RateLimit {
  /** Requests allowed in the current minute window, for this request's rate-limit category. */
  limit: number;
  /** Requests remaining in the current minute window. */
  remaining: number;
  /** UTC epoch seconds when the current minute window resets. */
  reset: number;
  /** Requests allowed per UTC day for the workspace. */
  daily_limit: number;
  /** Requests remaining today. */
  daily_remaining: number;
  /** Seconds to wait, when the response carries `Retry-After` (a 429). */
  retry_after?: number;
}

const FIVE = ["limit", "remaining", "reset", "daily_limit", "daily_remaining"] as const;

const INTEGER = /^\s*\d+\s*$/;

function integer(headers: Headers, name: string): number | undefined {
  const v = headers.get(name);
  if (v === null) return undefined;
  if (!INTEGER.test(v)) throw new TypeError(`${name} header is not a non-negative integer: "${v.slice(0, 40)}"`);
  return Number(v);
}

/** `Retry-After` as the contract defines it, integer seconds; undefined when absent or in another form. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get(RATE_LIMIT_HEADERS.retry_after);
  return v !== null && INTEGER.test(v) ? Number(v) : undefined;
}

/**
 * Reads the five `X-RateLimit-*` headers (and `Retry-After` when present). Gives undefined when the response
 * carries none of them (e.g. the gateway's `/health`); throws a TypeError naming the header when only some
 * are there or one is not an integer, which the contract does not allow.
 */
export function readRateLimit(source: Response | Headers | { headers: Headers }): RateLimit | undefined {
  const headers = source instanceof Headers ? source : source.headers;
  // A loop, not map/filter: the client's onRateLimit calls this for every response.
  const info = {} as RateLimit;
  let found = 0;
  for (const k of FIVE) {
    const v = integer(headers, RATE_LIMIT_HEADERS[k]);
    if (v !== undefined) {
      info[k] = v;
      found++;
    }
  }
  if (found === 0) return undefined;
  if (found < FIVE.length) {
    const missing = FIVE.filter((k) => info[k] === undefined).map((k) => RATE_LIMIT_HEADERS[k]);
    throw new TypeError(`rate-limit headers missing: ${missing.join(", ")}`);
  }
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) info.retry_after = retryAfter;
  return info;
}

/** Reads the rate-limit headers of a response for `onRateLimit`: undefined when they are absent or malformed. */
export function rateLimitOf(response: Response): RateLimit | undefined {
  try {
    return readRateLimit(response);
  } catch {
    return undefined; // a malformed header must not fail a call whose answer is otherwise fine
  }
}
