// Reading the rate-limit headers (names in headers.ts): `readRateLimit` for one response, or for the latest
// response a client received; `rateLimitOf` for `onRateLimit`, which the transport loads only when a client has one.
import { RATE_LIMIT_HEADERS, nonNegativeInteger } from "./headers.js";
import type { ApiClient } from "./client.js";
import { INTERNALS, type ClientInternals } from "./internals.js";

export { RATE_LIMIT_HEADERS };

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

/**
 * Reads the five `X-RateLimit-*` headers (and `Retry-After` when present) of a response, or of the latest response
 * a client made by `createClient` received (the attempts it retried included). Gives undefined when the response
 * carries none of them (e.g. the gateway's `/health`, or a client that has had no answer yet); throws a TypeError
 * naming the header when only some are there or one is not an integer, which the contract does not allow.
 */
export function readRateLimit(source: Response | Headers | { headers: Headers } | ApiClient): RateLimit | undefined {
  const latest = (source as { [INTERNALS]?: ClientInternals })[INTERNALS]?.latest;
  const headers = source instanceof Headers ? source : (latest ?? (source as { headers?: Headers })).headers;
  if (!headers) return undefined;
  const info = rateLimitOf(headers);
  if (info) return info;
  const names = FIVE.map((k) => RATE_LIMIT_HEADERS[k]);
  const missing = names.filter((name) => !headers.has(name));
  if (missing.length === names.length) return undefined;
  if (missing.length) throw new TypeError(`rate-limit headers missing: ${missing.join(", ")}`);
  const bad = names.find((name) => nonNegativeInteger(headers.get(name)) === undefined)!;
  throw new TypeError(`${bad} header is not a non-negative integer: "${headers.get(bad)!.slice(0, 40)}"`);
}
