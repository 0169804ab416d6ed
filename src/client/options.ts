// The options of a client and of one call: the retry policy (its defaults, merging and backoff) and the timeout.
// Plain data and pure functions, below the transport, the client's internals and the helpers (streaming.ts), so
// each reads them without importing the transport (decision LY3).
import type { components } from "../../generated/schema.js";
export interface RetryOptions {
  /** Attempts in all, the first included; 1 sends once. Default 3. */
  maxAttempts?: number;
  /** Time budget of the whole call, attempts and waits included: a wait that would end after it is not started. Default 60 000. */
  maxElapsedMs?: number;
  /** First backoff wait; it doubles on each retry. Default 500. */
  baseDelayMs?: number;
  /** Longest backoff wait (a longer `Retry-After` is still honoured, within `maxElapsedMs`). Default 10 000. */
  maxDelayMs?: number;
  /** Statuses retried with exponential backoff. Default [500, 502, 503, 504]. */
  retryStatuses?: readonly number[];
  /** Retry a 429 after its `Retry-After`. Default true. */
  retryRateLimited?: boolean;
  /** Retry network errors and timeouts. Default true. */
  retryNetworkErrors?: boolean;
  /** Source of jitter, a number in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export type ResolvedRetry = Required<RetryOptions>;

export const RETRY_DEFAULTS: ResolvedRetry = {
  maxAttempts: 3,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  retryStatuses: [500, 502, 503, 504],
  retryRateLimited: true,
  retryNetworkErrors: true,
  random: Math.random,
};

export const DEFAULT_TIMEOUT_MS = 30_000;

/** Options a single call may override: `client.GET(path, { ..., timeoutMs: 5000, retry: false })`. */
export interface CallOptions {
  /** Per attempt: time to wait for the response headers, then again for the body (see `ClientOptions.timeoutMs`); 0 or Infinity waits forever. */
  timeoutMs?: number;
  /** Retry policy of this call; `false` sends once. Merged over the client's policy. */
  retry?: RetryOptions | false;
}

/** `v`, when it is a number >= 0 (and an integer >= 1 if `integer`); else a TypeError naming the option. */
export function checked(name: string, v: unknown, integer?: boolean): number {
  if (integer ? !Number.isInteger(v) || (v as number) < 1 : typeof v !== "number" || !(v >= 0)) {
    throw new TypeError(`${name} must be ${integer ? "an integer >= 1" : "a non-negative number"}`);
  }
  return v as number;
}

/** Merges retry options over a base policy and checks them; `false` turns retrying off. */
export function resolveRetry(options: RetryOptions | false | undefined, base: ResolvedRetry | null): ResolvedRetry | null {
  if (options === false) return null;
  if (options === undefined) return base;
  const r: ResolvedRetry = { ...(base ?? RETRY_DEFAULTS), ...options };
  for (const k of ["maxElapsedMs", "baseDelayMs", "maxDelayMs"] as const) checked(`retry.${k}`, r[k]);
  return checked("retry.maxAttempts", r.maxAttempts, true) === 1 ? null : r;
}

/** Exponential backoff with "equal jitter": retry n waits in [d/2, d), d = min(maxDelayMs, baseDelayMs * 2^(n-1)). */
export function backoffMs(retry: ResolvedRetry, n: number): number {
  const d = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (n - 1));
  return d / 2 + retry.random() * (d / 2);
}

/** The header a 429 names its wait in (RATE_LIMIT_HEADERS.retry_after of headers.ts; the type check holds it to the contract). */
export const RETRY_AFTER = "Retry-After" satisfies keyof components["headers"];

/**
 * `Retry-After` as the contract defines it, integer seconds; undefined when absent or in another form. Read here,
 * with the retries, and not with headers.ts's `nonNegativeInteger`: that module is loaded only by clients that read
 * rate limits (decision C9), and this runs only for a 429 or a failed call, where a regular expression costs nothing.
 */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get(RETRY_AFTER);
  return v !== null && /^ *\d+ *$/.test(v) ? Number(v) : undefined;
}
