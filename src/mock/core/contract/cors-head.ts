// The CORS headers every answer carries (any origin; every response header a browser app may read exposed to its
// scripts), computed once from the contract by the services. Below the services and stages/cors.ts (the preflight).
import type { Contract, Json } from "./contract-build.js";
import { MOCK_NOTICE_HEADER } from "../events/webhooks.js";

/** Response headers a browser shows scripts without being told (the CORS-safelisted ones, Fetch §3.2.6). */
const SAFELISTED = new Set(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);

/**
 * Every response header a browser app may read, for `Access-Control-Expose-Headers` (decision MC5): each header any
 * response of the contract declares (`WWW-Authenticate`, `Retry-After`, `Location`, …, and whatever a later version
 * adds), the rate-limit headers of `x-rate-limit-policy`, and the mock's own `X-Mock-Notice`; in the contract's
 * spelling, without the safelisted ones a browser shows anyway.
 */
export function exposedHeaders(contract: Contract): string[] {
  const names = new Map<string, string>();
  const add = (name: string) => {
    if (!SAFELISTED.has(name.toLowerCase()) && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  };
  for (const h of Object.values(contract.policy.headers)) add(h);
  for (const route of contract.router.routes) {
    for (const response of Object.values<Json>(route.op.responses ?? {})) for (const name of Object.keys(contract.deref(response)?.headers ?? {})) add(name);
  }
  add(MOCK_NOTICE_HEADER);
  return [...names.values()];
}

/** The CORS headers of every answer, as a flat [name, value, …] list. */
export function corsHead(contract: Contract): string[] {
  return ["Access-Control-Allow-Origin", "*", "Access-Control-Expose-Headers", exposedHeaders(contract).join(", ")];
}
