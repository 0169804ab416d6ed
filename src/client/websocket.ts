// URLs that carry the `token` query parameter (WebSocket, browser EventSource), and opening a WebSocket in
// Node or a browser. Interface specification, rule 7: a token in a URL is a secret, so it only goes into a
// URL sent over TLS (https:, wss:), or to a loopback host (127.0.0.0/8, ::1, localhost) for local work.
import { InsecureTransportError } from "./errors.js";
import { abortReason } from "./timers.js";

/** The query parameter the WebSocket and SSE operations accept credentials in (`TokenQuery`). */
export const TOKEN_QUERY_PARAM = "token";

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Is a URL hostname (as `URL.hostname` gives it: IPv4 normalised, IPv6 in brackets) a loopback host? */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h === "[::1]" || IPV4_LOOPBACK.test(h);
}

const TLS_PROTOCOLS = new Set(["https:", "wss:"]);
const PLAIN_PROTOCOLS = new Set(["http:", "ws:"]);

/** Throws unless a token may be put into this URL. The message names the origin, never the token. */
export function assertTokenSafe(url: URL): void {
  if (TLS_PROTOCOLS.has(url.protocol)) return;
  if (PLAIN_PROTOCOLS.has(url.protocol) && isLoopbackHost(url.hostname)) return;
  throw new InsecureTransportError(
    `refusing to put a token into ${url.protocol}//${url.host}${url.pathname}: tokens in URLs are sent over TLS only ` +
      `(https:/wss:), or to a loopback host`,
  );
}

/** Adds the token to a URL after checking the rule; `wsScheme` turns http(s) into ws(s) first. */
export function withToken(href: string, token: string, wsScheme: boolean): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  const url = new URL(href, base);
  if (wsScheme) {
    if (url.protocol === "https:") url.protocol = "wss:";
    else if (url.protocol === "http:") url.protocol = "ws:";
  }
  assertTokenSafe(url);
  url.searchParams.set(TOKEN_QUERY_PARAM, token);
  return url.href;
}

/** Replaces the value of `token` in a URL, for messages and logs. */
export function redactToken(href: string): string {
  return href.replace(/([?&]token=)[^&#]*/gi, "$1***");
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocket;

/**
 * The WebSocket class to use: the given one, else the platform's (browsers, Node 22+), else the `ws` package,
 * loaded only then, so browser bundles and the core never import a Node-only module.
 */
export async function webSocketClass(given?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (given) return given;
  const native = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (native) return native;
  const mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ "ws");
  return (mod.WebSocket ?? mod.default) as unknown as WebSocketConstructor;
}

/**
 * Resolves once the socket is open; rejects if it fails or closes first, or if `signal` aborts (closing it).
 * Add message listeners before awaiting this: a server may send its first message together with the upgrade.
 */
export function whenOpen(ws: WebSocket, signal?: AbortSignal): Promise<WebSocket> {
  return new Promise<WebSocket>((resolve, reject) => {
    const done = () => {
      ws.removeEventListener("open", onOpen);
      ws.removeEventListener("error", onError);
      ws.removeEventListener("close", onClose);
      signal?.removeEventListener("abort", onAbort);
    };
    const onOpen = () => {
      done();
      resolve(ws);
    };
    const onError = (e: Event) => {
      done();
      const detail = (e as { message?: unknown }).message;
      reject(new Error(`WebSocket failed to open${typeof detail === "string" && detail ? `: ${redactToken(detail)}` : ""}`));
    };
    const onClose = (e: CloseEvent) => {
      done();
      reject(new Error(`WebSocket closed before it opened (code ${e.code})`));
    };
    const onAbort = () => {
      done();
      ws.close();
      reject(abortReason(signal!));
    };
    if (signal?.aborted) return onAbort();
    ws.addEventListener("open", onOpen);
    ws.addEventListener("error", onError);
    ws.addEventListener("close", onClose);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
