// Stage `cors`: answers a CORS preflight (OPTIONS with Access-Control-Request-Method) on any path, without
// credentials. The headers every answer carries (any origin; the rate-limit headers exposed to scripts) are
// `corsHead`, sent by the server with each answer.
import type { RateLimitPolicy } from "../../policy.js";
import type { Reply } from "../http/reply.js";
import type { StageFactory } from "../stage.js";

const ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "Accept", "Prefer", "Last-Event-ID"];
const KNOWN = new Set(ALLOW_HEADERS.map((h) => h.toLowerCase()));
const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/** The CORS headers of every answer, as a flat [name, value, …] list. */
export function corsHead(policy: RateLimitPolicy): string[] {
  return ["Access-Control-Allow-Origin", "*", "Access-Control-Expose-Headers", Object.values(policy.headers).join(", ")];
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
