// Proxy mode's upstream (--upstream, MOCK_UPSTREAM): the backend every request is forwarded to, parsed once at
// start-up, and the settings of the mock that mean nothing in this mode (they are refused, not ignored).
import http from "node:http";
import https from "node:https";

export class UpstreamError extends Error {}

export interface Upstream {
  /** As given, without a trailing slash: `https://staging.example.com/api`. */
  readonly url: string;
  readonly protocol: "http:" | "https:";
  readonly hostname: string;
  readonly port: number;
  /** `Host` of the forwarded requests: the upstream's own, so virtual hosts and TLS names match. */
  readonly host: string;
  /** A base path the request's own path is appended to (`/api`), or "". */
  readonly basePath: string;
}

/**
 * Parses an upstream URL: http or https only, no user info (it would end up in logs), no query or fragment (the
 * request's own are forwarded). `flag` names the setting in the errors.
 */
export function parseUpstream(raw: string, flag = "--upstream"): Upstream {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UpstreamError(`${flag} ${JSON.stringify(raw)} is not a URL; give the backend's base URL, e.g. https://staging.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UpstreamError(`${flag} must be an http:// or https:// URL, not ${url.protocol}//…`);
  if (url.username || url.password) throw new UpstreamError(`${flag} must not carry credentials: the app's own requests carry theirs`);
  if (url.search || url.hash) throw new UpstreamError(`${flag} must be a base URL without a query or fragment`);
  const basePath = url.pathname.replace(/\/+$/, "");
  return {
    url: url.origin + basePath,
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port) || (url.protocol === "https:" ? 443 : 80),
    host: url.host,
    basePath,
  };
}

/** The mock's settings that proxy mode has no use for, by option name → how a user names it. */
const MOCK_ONLY: Record<string, string> = {
  stateless: "--stateless (MOCK_STATELESS)",
  stateFile: "--state (MOCK_STATE_FILE)",
  latencyMs: "--latency (MOCK_LATENCY_MS)",
  keysFile: "--keys (MOCK_KEYS_FILE)",
  fixtures: "--fixtures (MOCK_FIXTURES)",
  redisUrl: "--redis (MOCK_REDIS_URL)",
};

/**
 * Throws when a setting of the mock is combined with an upstream: in proxy mode the backend answers, so nothing is
 * kept, delayed or authenticated by the gateway, and a setting that would silently do nothing is an error.
 */
export function refuseMockSettings(settings: Record<string, unknown>): void {
  const given = Object.keys(MOCK_ONLY).filter((k) => settings[k] !== undefined && settings[k] !== null && settings[k] !== false && settings[k] !== "");
  if (given.length) {
    throw new UpstreamError(
      `--upstream (MOCK_UPSTREAM) forwards every request to the backend, which answers it: ${given.map((k) => MOCK_ONLY[k]).join(", ")} ` +
        `${given.length > 1 ? "have" : "has"} no meaning then. Use one or the other.`,
    );
  }
}

/** One connection pool per upstream (keep-alive), destroyed when the gateway closes. */
export function upstreamAgent(u: Upstream): http.Agent {
  return u.protocol === "https:" ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
}

/** Starts a request to the upstream: `target` is the path and query as the client sent them. */
export function upstreamRequest(u: Upstream, agent: http.Agent, method: string, target: string, headers: string[]): http.ClientRequest {
  const send = u.protocol === "https:" ? https.request : http.request;
  return send({ protocol: u.protocol, hostname: u.hostname, port: u.port, method, path: u.basePath + target, headers, agent, setHost: false });
}
