// The state of one request as it travels the pipeline (pipeline.ts): what the request is, and what each stage
// has found out about it so far. One object per request, filled in by the stages in order; a stage reads only
// what an earlier stage has set (the comments say which).
import type http from "node:http";
import type { Duplex } from "node:stream";
import type { AuthResult, Principal } from "../access/auth.js";
import type { Route, RouteMatch } from "../contract/contract-build.js";
import { json, type Reply } from "../http/reply.js";
import type { Decision } from "../access/limiter.js";
import type { Preferences } from "../contract/preferences.js";

const NONE: Readonly<Record<string, string>> = Object.freeze({});
const NO_HEADERS: readonly string[] = Object.freeze([]);
const NO_PREFERENCES: Readonly<Preferences> = Object.freeze({});
const NO_MATCH: RouteMatch = Object.freeze({ kind: "none" });
/** The query of every request without one (most): shared, so never changed by anyone. */
const NO_QUERY = new URLSearchParams();
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * Where the path of an absolute-form target of this server's schemes begins (after `http://authority`); 0 for
 * any other target, which is then routed as sent (and found nowhere).
 */
function absoluteFormAuthorityEnd(target: string): number {
  return ABSOLUTE_FORM.exec(target)?.[0].length ?? 0;
}

export class RequestContext {
  readonly t0 = performance.now();
  readonly method: string;
  /** The request target as sent, query included. */
  readonly url: string;
  readonly pathname: string;
  private readonly qi: number;
  private q: URLSearchParams | null = null;

  /** The operation the method and path name, or why none does (`matchRoute`). */
  match: RouteMatch = NO_MATCH;
  /** The credentials' verdict (`authenticate`), and the principal when they are valid. */
  auth: AuthResult | null = null;
  principal: Principal | null = null;
  /** `X-Request-Id` and the request's id, as [name, value] (`requestId`, the first stage; none before it). */
  idHead: readonly string[] = NO_HEADERS;
  /** The five X-RateLimit-* headers of the bucket the request was counted in, as [name, value, …] (`rateLimit`). */
  rate: readonly string[] = NO_HEADERS;
  /** The rate limiter's verdict those headers show (`rateLimit`): `GET /v1/billing/usage` reports it. */
  decision: Decision | null = null;
  /** The matched operation and its path parameters (`route`; set for every stage after it). */
  route!: Route;
  params: Record<string, string> = NONE;
  /** `Prefer: code=…, example=…, dynamic=…` (`prefer`). */
  prefer: Preferences = NO_PREFERENCES;
  /** `Prefer: scenario=…` or `?__scenario=…`, checked against the operation's scenarios (`prefer`). */
  scenario: string | undefined = undefined;
  /** The request body's bytes (`readBody`) and its parsed, validated value (`validateBody`). */
  raw: Buffer | null = null;
  body: unknown = undefined;

  constructor(
    readonly req: http.IncomingMessage,
    /** The response of a plain HTTP request; null on an upgrade. */
    readonly res: http.ServerResponse | null,
    /** The socket and first bytes of a WebSocket upgrade; null on a plain request. */
    readonly upgrade: { socket: Duplex; head: Buffer } | null = null,
  ) {
    this.method = req.method ?? "GET";
    this.url = req.url ?? "/";
    // Origin-form (`/v1/analyses?limit=2`), or absolute-form (`http://host/v1/analyses?limit=2`, RFC 9112
    // §3.2.2), which a server must accept: routed by its path and query alone (decision G24).
    const start = this.url.charCodeAt(0) === 47 /* "/" */ ? 0 : absoluteFormAuthorityEnd(this.url);
    this.qi = this.url.indexOf("?", start);
    this.pathname = this.url.slice(start, this.qi < 0 ? undefined : this.qi) || "/";
  }

  /** The query string, parsed on first use (read it; do not change it). */
  get query(): URLSearchParams {
    return (this.q ??= this.qi < 0 ? NO_QUERY : new URLSearchParams(this.url.slice(this.qi + 1)));
  }

  /** A JSON answer carrying the request's rate-limit headers (none before it is counted). */
  json(status: number, value: unknown, headers?: Record<string, string>): Reply {
    return json(status, value, headers, this.rate);
  }

  /** The workspace the request is made in, once its credentials are known (for the request log). */
  get workspace(): string | null {
    return this.principal?.workspaceId ?? null;
  }

  /**
   * Whether the operation's own success is wanted: no `Prefer: code`, or the success code itself. Otherwise the
   * frontend asked for another documented response, which only the contract's examples give.
   */
  wantsSuccess(): boolean {
    return this.prefer.code === undefined || this.prefer.code === this.route.successCode;
  }

  /**
   * Whether the mock's own answer is wanted (from its state: keys, webhooks, resources): no `Prefer` asks for a
   * status (even the success: the state might answer another), a named example or a generated (`dynamic`) one.
   * Otherwise the contract's examples answer, as `Prefer` asked.
   */
  wantsRealAnswer(): boolean {
    const p = this.prefer;
    return p.code === undefined && p.example === undefined && !p.dynamic;
  }
}
