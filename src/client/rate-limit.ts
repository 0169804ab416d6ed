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
type Five = (typeof FIVE)[number];

/** The field each of the five headers fills, by the header's name as `Headers` iterates it (lower case). */
const FIELD_OF: ReadonlyMap<string, Five> = new Map(FIVE.map((k) => [RATE_LIMIT_HEADERS[k].toLowerCase(), k]));


const SPACE = 32;
const ZERO = 48;

/**
 * A header value that is a non-negative integer (digits, optionally padded with spaces), or undefined. A loop
 * rather than a regular expression and Number(): this runs for five headers of every response (npm run bench).
 */
function nonNegativeInteger(v: string): number | undefined {
  const end = v.length;
  let i = 0;
  while (i < end && v.charCodeAt(i) === SPACE) i++;
  const first = i;
  let n = 0;
  for (let d; i < end && (d = v.charCodeAt(i) - ZERO) >= 0 && d <= 9; i++) n = n * 10 + d;
  if (i === first) return undefined;
  while (i < end && v.charCodeAt(i) === SPACE) i++;
  return i === end ? n : undefined;
}

/** `Retry-After` as the contract defines it, integer seconds; undefined when absent or in another form. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get(RATE_LIMIT_HEADERS.retry_after);
  return v === null ? undefined : nonNegativeInteger(v);
}

/**
 * Reads the five `X-RateLimit-*` headers (and `Retry-After` when present). Gives undefined when the response
 * carries none of them (e.g. the gateway's `/health`); throws a TypeError naming the header when only some
 * are there or one is not an integer, which the contract does not allow.
 */
export function readRateLimit(source: Response | Headers | { headers: Headers }): RateLimit | undefined {
  const headers = source instanceof Headers ? source : source.headers;
  // One pass over the headers rather than a get() per name: the client's onRateLimit calls this for every
  // response, and each get() checks and lower-cases its name again (npm run bench: half the cost).
  const info = {} as RateLimit;
  let found = 0;
  let retryAfter: string | undefined;
  const entries = headers.entries();
  for (let e = entries.next(); !e.done; e = entries.next()) {
    const [name, value] = e.value;
    const field = FIELD_OF.get(name);
    if (field !== undefined) {
      const n = nonNegativeInteger(value);
      if (n === undefined) throw new TypeError(`${RATE_LIMIT_HEADERS[field]} header is not a non-negative integer: "${value.slice(0, 40)}"`);
      info[field] = n;
      found++;
    } else if (name === "retry-after") {
      retryAfter = value;
    }
  }
  if (found === 0) return undefined;
  if (found < FIVE.length) {
    const missing = FIVE.filter((k) => info[k] === undefined).map((k) => RATE_LIMIT_HEADERS[k]);
    throw new TypeError(`rate-limit headers missing: ${missing.join(", ")}`);
  }
  const seconds = retryAfter === undefined ? undefined : nonNegativeInteger(retryAfter);
  if (seconds !== undefined) info.retry_after = seconds;
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
