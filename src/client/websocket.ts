// URLs that carry the `token` query parameter (WebSocket, browser EventSource), and opening a WebSocket of the
// contract in Node or a browser. Interface specification, rule 7: a token in a URL is a secret, so it only goes
// into a URL sent over TLS (https:, wss:), or to a loopback host (127.0.0.0/8, ::1, localhost) for local work.
// Entry point `@avt/api-contract/websocket` (also exported by the package root): kept out of the client object
// so that an app that opens no WebSocket does not bundle this.
import type { ApiClient } from "./client.js";
import { InsecureTransportError } from "./errors.js";
import { internalsOf, operationUrl } from "./internals.js";
import { abortReason } from "./timers.js";
import type { WebSocketConstructor, WebSocketInit, WebSocketParams, WebSocketPath } from "./types.js";

export type { WebSocketConstructor, WebSocketInit, WebSocketOptions, WebSocketParams, WebSocketPath } from "./types.js";

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

/**
 * The WebSocket class to use: the given one, else the platform's (browsers, Node 22+), else the `ws` package,
 * loaded only then, so browser bundles and the core never import a Node-only module.
 */
export async function webSocketClass(given?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (given) return given;
  const native = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (native) return native;
  // The .catch makes the import optional to esbuild too (webpack and Vite read the comments): an app bundled by esbuild
  // without `ws` installed builds, and only a call here, in a runtime with no WebSocket, fails.
  const mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ "ws").catch((e: unknown) => {
    throw new Error("No WebSocket here: this runtime has none and the optional peer `ws` is not installed (npm install ws)", { cause: e });
  });
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

/** The `wss://` URL of a WebSocket operation of the contract, with the `token` query parameter (TLS only). */
export async function webSocketUrl<P extends WebSocketPath>(client: ApiClient, path: P, params?: WebSocketParams<P>): Promise<string> {
  const internals = internalsOf(client);
  return withToken(operationUrl(internals, path, params as Parameters<typeof operationUrl>[2]), await internals.queryToken(), true);
}

/**
 * Connects to a WebSocket operation (`/v1/stream`, `/ws/analyses/{analysis_id}`) with the `token` query
 * parameter. Resolves with the socket as soon as it is created, before it opens, so listeners added right after
 * `await` miss no message; `whenOpen(socket)` waits for the open. Aborting `signal` closes the socket. The class
 * is the client's `WebSocket` option, else the platform's, else the `ws` package (Node).
 */
export async function openWebSocket<P extends WebSocketPath>(client: ApiClient, path: P, ...init: WebSocketInit<P>): Promise<WebSocket> {
  const o: { params?: WebSocketParams<P>; protocols?: string | string[]; signal?: AbortSignal } = init[0] ?? {};
  const url = await webSocketUrl(client, path, o.params);
  const WebSocketClass = await webSocketClass(internalsOf(client).WebSocket);
  o.signal?.throwIfAborted();
  const socket = new WebSocketClass(url, o.protocols);
  o.signal?.addEventListener("abort", () => socket.close(), { once: true });
  return socket;
}
