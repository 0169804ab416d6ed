// Stage `cors`: answers a CORS preflight (OPTIONS with Access-Control-Request-Method) on any path, without
// credentials. The headers every answer carries (any origin; every response header a browser app may read exposed
// to its scripts) are `corsHead` (cors-head.ts), sent by the server with each answer.
import type { Reply } from "../http/reply.js";
import type { StageFactory } from "../pipeline/stage.js";

const ALLOW_HEADERS = ["X-API-Key", "Authorization", "Content-Type", "Accept", "Prefer", "Last-Event-ID"];
const KNOWN = new Set(ALLOW_HEADERS.map((h) => h.toLowerCase()));
const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

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
