// The rate-limit headers every response under /v1, /aria and /ws carries. The names are the contract's
// (`x-rate-limit-policy.headers`, keyed the same way); the type check below fails to compile if one of them
// is not a header component of the generated types, and test/client/contract-names.test.ts compares the
// whole map with the contract. Also `rateLimitOf`, the headers as a RateLimit, which the transport tells
// `onRateLimit`: here, rather than in rate-limit.ts (`readRateLimit`, which takes a client) (decision LY3).
// The transport loads this module with import() when a client has `onRateLimit` (decision C9), so it imports
// nothing the client core imports: an app that never reads rate limits does not load it up front.
import type { components } from "../../generated/schema.js";

export const RATE_LIMIT_HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
  daily_limit: "X-RateLimit-Daily-Limit",
  daily_remaining: "X-RateLimit-Daily-Remaining",
  retry_after: "Retry-After",
} as const satisfies Record<string, keyof components["headers"]>;

/**
 * A header value that is a non-negative integer (digits, optionally padded with spaces), or undefined. A loop
 * rather than a regular expression and Number(): `onRateLimit` runs this for five headers of every response
 * (npm run bench).
 */
export function nonNegativeInteger(v: string | null | undefined): number | undefined {
  if (v == null) return undefined;
  let i = 0;
  while (v.charCodeAt(i) === 32) i++;
  const first = i;
  let n = 0;
  for (let d; (d = v.charCodeAt(i) - 48) >= 0 && d <= 9; i++) n = n * 10 + d;
  if (i === first) return undefined;
  while (v.charCodeAt(i) === 32) i++;
  return i === v.length ? n : undefined;
}

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

/** The five headers every answer carries (`Retry-After` only a 429). */
export const RATE_LIMIT_FIVE = ["limit", "remaining", "reset", "daily_limit", "daily_remaining"] as const;
const FIVE = RATE_LIMIT_FIVE;
/** The names as `Headers` iterates them (lower case). */
const [LIMIT, REMAINING, RESET, DAILY_LIMIT, DAILY_REMAINING, RETRY_AFTER] = [...FIVE, "retry_after" as const].map((k) => RATE_LIMIT_HEADERS[k].toLowerCase());

/**
 * The rate limits in some headers, or undefined when any of the five is absent or malformed: what `onRateLimit`
 * is told (a header glitch must not fail a call whose answer is otherwise fine). One pass over the headers comparing
 * names, rather than a get() per name: each get() checks and lower-cases its name again, and `onRateLimit` runs
 * this for every response (npm run bench: the pass is most of its price; comparing is a sixth less than a Map lookup).
 */
export function rateLimitOf(headers: Headers): RateLimit | undefined {
  let limit, remaining, reset, dailyLimit, dailyRemaining, retryAfter;
  for (const [name, value] of headers) {
    if (name === LIMIT) limit = value;
    else if (name === REMAINING) remaining = value;
    else if (name === RESET) reset = value;
    else if (name === DAILY_LIMIT) dailyLimit = value;
    else if (name === DAILY_REMAINING) dailyRemaining = value;
    else if (name === RETRY_AFTER) retryAfter = value;
  }
  const info: RateLimit = {
    limit: nonNegativeInteger(limit)!,
    remaining: nonNegativeInteger(remaining)!,
    reset: nonNegativeInteger(reset)!,
    daily_limit: nonNegativeInteger(dailyLimit)!,
    daily_remaining: nonNegativeInteger(dailyRemaining)!,
  };
  for (const k of FIVE) if (info[k] === undefined) return undefined;
  const seconds = nonNegativeInteger(retryAfter);
  if (seconds !== undefined) info.retry_after = seconds;
  return info;
}
