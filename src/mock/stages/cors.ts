// Stage `cors`: answers a CORS preflight (OPTIONS with Access-Control-Request-Method) on any path, without
// credentials. The headers every answer carries (any origin; every response header a browser app may read exposed
// to its scripts) are `corsHead`, sent by the server with each answer.
import type { Contract, Json } from "../contract.js";
import type { Reply } from "../http/reply.js";
import { MOCK_NOTICE_HEADER } from "../webhooks.js";
import type { StageFactory } from "../stage.js";

const ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "Accept", "Prefer", "Last-Event-ID"];
const KNOWN = new Set(ALLOW_HEADERS.map((h) => h.toLowerCase()));
const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

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

export const cors: StageFactory = () =>
  function cors(ctx) {
    if (ctx.method !== "OPTIONS" || !ctx.req.headers["access-control-request-method"]) return undefined;
    return preflight(String(ctx.req.headers["access-control-request-headers"] ?? ""));
  };

/** Allows the headers the API uses, plus whatever else the browser asks for. */
function preflight(requestedHeaders: string): Reply {
  const requested = requestedHeaders
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const allow = [...ALLOW_HEADERS, ...requested.filter((h) => !KNOWN.has(h.toLowerCase()))];
  return {
    status: 204,
    headers: { "Access-Control-Allow-Methods": METHODS, "Access-Control-Allow-Headers": allow.join(", "), "Access-Control-Max-Age": "600" },
    body: null,
  };
}
