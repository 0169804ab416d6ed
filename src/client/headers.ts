// The rate-limit headers every response under /v1, /aria and /ws carries. The names are the contract's
// (`x-rate-limit-policy.headers`, keyed the same way); the type check below fails to compile if one of them
// is not a header component of the generated types, and test/client/contract-names.test.ts compares the
// whole map with the contract. Kept apart from rate-limit.ts, which the transport loads only for `onRateLimit`.
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

/** `Retry-After` as the contract defines it, integer seconds; undefined when absent or in another form. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  return nonNegativeInteger(headers.get(RATE_LIMIT_HEADERS.retry_after));
}
