// Stage `ownPaths`: what the gateway answers itself, without credentials and outside the rate limits (GET and
// HEAD; 405 with `Allow` to any other method): /health and /healthz (the gateway's health, 503 while draining), /openapi.yaml (the bytes of
// generated/openapi.yaml), /swagger.html and its assets under /swagger-ui/, and / (a redirect to the viewer).
import { json, type Reply } from "../http/reply.js";
import type { ContractBytes } from "../contract/contract-build.js";
import { DEPENDENCY_RETRY_AFTER_SECONDS } from "../access/rate-answers.js";
import type { Services } from "../pipeline/services.js";
import type { StageFactory } from "../pipeline/stage.js";
import { swaggerCsp, swaggerInitJs, swaggerPage, SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE } from "../contract/swagger-page.js";
import type { AssetReader } from "../pipeline/platform.js";

export const ownPaths: StageFactory = (s) => {
  const doc = s.contract.doc;
  const yaml = yamlAnswer(s.contract.yamlBytes);
  const fixed = new Map<string, Reply>([
    [
      "/swagger.html",
      {
        status: 200,
        headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": swaggerCsp(doc, { header: true }) },
        body: Buffer.from(swaggerPage(doc)),
      },
    ],
    ["/", { status: 302, headers: { Location: "/swagger.html" }, body: null }],
  ]);
  const assets = new SwaggerAssetFiles(s.platform.swaggerAsset);
  return function ownPaths(ctx) {
    const p = ctx.pathname;
    const own = p === "/health" || p === "/healthz" || p === "/openapi.yaml" || fixed.has(p) || assets.lookup(p) !== undefined;
    // Another method on one of these paths is a method the path does not take (the contract lists only GET), not
    // a path that does not exist: 405 with `Allow`, as on the API's paths (Schemathesis sent TRACE and got 404).
    if (own && ctx.method !== "GET" && ctx.method !== "HEAD") return json(405, { detail: `${ctx.method} is not allowed on ${p}; use GET, HEAD.` }, { Allow: "GET, HEAD" });
    if (!own) return undefined;
    // A fresh copy: the server adds its own headers to the answer it sends.
    const copy = (r: Reply): Reply => ({ status: r.status, headers: { ...r.headers }, body: ctx.method === "HEAD" ? null : r.body });
    if (p === "/openapi.yaml") {
      const r = yaml();
      return r instanceof Promise ? r.then(copy) : copy(r);
    }
    return copy(p === "/health" || p === "/healthz" ? health(s) : (fixed.get(p) ?? assets.lookup(p))!);
  };
};

/** The answer to /openapi.yaml: made once, from the bytes, or from the loader on the first request (then kept). */
function yamlAnswer(source: ContractBytes): () => Reply | Promise<Reply> {
  const answer = (body: Reply["body"]): Reply => ({ status: 200, headers: { "Content-Type": "application/yaml; charset=utf-8", "Cache-Control": "no-cache" }, body });
  if (typeof source !== "function") {
    const reply = answer(source);
    return () => reply;
  }
  let reply: Reply | undefined;
  let loading: Promise<Reply> | undefined;
  return () => reply ?? (loading ??= source().then((bytes) => (reply = answer(bytes))));
}

function health(s: Services): Reply {
  const now = s.clock.now();
  // A replica that cannot reach an engine it needs is down for its load balancer, which routes around it until
  // the connection is back (decision SB2).
  const postgres = s.shared?.health() ?? null;
  const dependencies = { ...s.engineHealth?.(), ...(postgres ? { postgres } : {}) };
  const down = s.live.draining || Object.values(dependencies).includes("down");
  const body = {
    status: down ? "down" : "ok",
    service: "gateway",
    uptime_seconds: Math.max(0, Math.floor((now - s.live.startedAt) / 1000)),
    checked_at: new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(Object.keys(dependencies).length ? { dependencies } : {}),
  };
  return json(down ? 503 : 200, body, { "Cache-Control": "no-store", ...(down && !s.live.draining ? { "Retry-After": String(DEPENDENCY_RETRY_AFTER_SECONDS) } : {}) });
}

/**
 * The viewer's files under /swagger-ui/: the init script ("Try it out" calls this mock) and the swagger-ui-dist
 * files the page uses, all read at start (a few MB, shared by every answer). A lookup of any other name keeps
 * nothing: the set never changes after start, whatever names clients ask for (decision G20).
 */
export class SwaggerAssetFiles {
  private readonly prefix = `/${SWAGGER_ASSETS_DIR}/`;
  private readonly files = new Map<string, Reply>();

  /** `read` answers each asset's bytes (from swagger-ui-dist under Node); an asset it lacks is not served. */
  constructor(read: AssetReader) {
    this.files.set(SWAGGER_INIT_FILE, { status: 200, headers: { "Content-Type": "text/javascript; charset=utf-8" }, body: Buffer.from(swaggerInitJs()) });
    for (const name of Object.keys(SWAGGER_ASSETS)) {
      const asset = read(name);
      if (!asset) continue;
      this.files.set(name, { status: 200, headers: { "Content-Type": asset.contentType, "Cache-Control": "public, max-age=3600" }, body: asset.body });
    }
  }

  /** How many files it serves: fixed at start. */
  get size(): number {
    return this.files.size;
  }

  /** The answer for `pathname`, or undefined when it names none of the viewer's files. */
  lookup(pathname: string): Reply | undefined {
    return pathname.startsWith(this.prefix) ? this.files.get(pathname.slice(this.prefix.length)) : undefined;
  }
}
