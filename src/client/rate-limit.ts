// Reading the rate-limit headers (names in headers.ts): `readRateLimit` for one response, or for the latest
// response a client received. `rateLimitOf` (what `onRateLimit` is told) and `RateLimit` live in headers.ts, which
// the transport loads on demand (decision C9); exported here.
import { RATE_LIMIT_HEADERS as NAMES, RATE_LIMIT_FIVE as FIVE, nonNegativeInteger, rateLimitOf as parse, type RateLimit } from "./headers.js";
import type { ApiClient } from "./client.js";
import { INTERNALS, type ClientInternals } from "./internals.js";

export type { RateLimit };
// Bound here rather than re-exported (`export { ... } from`): esbuild follows a re-export from the package root to
// headers.ts even in an app that uses neither, and then loads headers.ts up front, where the client core only loads it
// with import() (decision C9). A binding of this module is dropped with the module when the app does not use it.
export const RATE_LIMIT_HEADERS: typeof NAMES = NAMES;
export const rateLimitOf: typeof parse = parse;

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
  const info = parse(headers);
  if (info) return info;
  const names = FIVE.map((k) => NAMES[k]);
  const missing = names.filter((name) => !headers.has(name));
  if (missing.length === names.length) return undefined;
  if (missing.length) throw new TypeError(`rate-limit headers missing: ${missing.join(", ")}`);
  const bad = names.find((name) => nonNegativeInteger(headers.get(name)) === undefined)!;
  throw new TypeError(`${bad} header is not a non-negative integer: "${headers.get(bad)!.slice(0, 40)}"`);
}
