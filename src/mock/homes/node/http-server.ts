// The node:http server under the gateway: its time limits, and the answers for what never reaches the request
// pipeline (requests node:http cannot parse, requests not received in time, CONNECT), each still with the
// contract's error body.
import http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { writeRaw } from "../../core/http/respond.js";
import { json, type Reply } from "../../core/http/reply.js";
import { CAPACITY_RETRY_AFTER_SECONDS } from "../../core/access/limits.js";

/** node:http's own defaults, made explicit: a whole request within 5 minutes, its headers within 1 minute. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

export interface ServerHandlers {
  request(req: http.IncomingMessage, res: http.ServerResponse): void;
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  /** Time a client has to send a whole request (headers alone: at most DEFAULT_HEADERS_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** Time a client has for a request's headers, from its first byte (default DEFAULT_HEADERS_TIMEOUT_MS; tests shorten it). */
  headersTimeoutMs?: number;
  /**
   * Completes the answer to a request the pipeline could not finish (node:http could not parse it, or it was not
   * received in time) with the rate-limit headers it carries, or turns it into a 429 (decision G26). `inFlight` is
   * the response of the request the pipeline was already serving on that connection, if any.
   */
  refused?(socket: Duplex, reply: Reply, inFlight: http.ServerResponse | undefined): Reply;
  /** The headers every answer carries (CORS: cors-head.ts), on the answers given here too. */
  head?: readonly string[];
  /** The headers of one answer given here: a fresh X-Request-Id each (request-id.ts `freshIdHead`). */
  ownHead?: () => readonly string[];
  /**
   * A request node:http could not parse, as its bytes (`rawPacket`): true when it was taken care of (proxy mode relays
   * it to the upstream, proxy/unparsed.ts); otherwise it is answered 400 here. `refuse` answers that 400 (when the
   * upstream cannot be reached).
   */
  unparsed?(socket: Duplex, raw: Buffer | undefined, refuse: () => void): boolean;
  /** Open connections at most (limits.ts `connections`): one more is answered 503 `capacity_exceeded` and closed. */
  maxConnections?: number;
  /** Percent of `maxConnections` one client address may hold (limits.ts `addressShare`, default 100). */
  addressShare?: number;
  /** A connection with no request in progress yet is closed after this long (limits.ts `connectionIdleMs`). */
  idleMs?: number;
}

/**
 * A request has arrived: the connection's idle limit no longer applies. Only a connection's first request finds one
 * set: node:http clears its keep-alive time-out itself before it hands on the next request of a connection.
 */
function busy(req: http.IncomingMessage): void {
  if ((req.socket as net.Socket).timeout) req.socket.setTimeout(0);
}

/** node:http's keep-alive between requests (its default), unless the idle limit is shorter. */
const KEEP_ALIVE_MS = 5000;

/**
 * Counts open connections, in all and per client address; one beyond `max`, or beyond an address's share of it,
 * gets a 503 `capacity_exceeded` at once and is closed, before any of its requests is read (node:http's own
 * `maxConnections` would close it without a word). The share keeps one address from taking every connection
 * (issue 29: 150 idle sockets made /health answer 503 to everyone).
 */
function capConnections(server: http.Server, max: number, sharePercent: number, head: readonly string[] | undefined, ownHead?: () => readonly string[]): void {
  const perAddress = Math.max(1, Math.floor((max * Math.min(100, sharePercent)) / 100));
  const byAddress = new Map<string, number>();
  let open = 0;
  server.on("connection", (socket: net.Socket) => {
    const address = socket.remoteAddress ?? "";
    const mine = (byAddress.get(address) ?? 0) + 1;
    open++;
    byAddress.set(address, mine);
    socket.once("close", () => {
      open--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left) byAddress.set(address, left);
      else byAddress.delete(address);
    });
    if (open <= max && mine <= perAddress) return;
    socket.on("error", () => socket.destroy());
    const detail =
      open > max
        ? `The mock has ${max} connections open, the most it keeps (--max-connections): retry shortly.`
        : `Your address has ${perAddress} connections open, its share (--address-connection-share ${sharePercent}% of --max-connections ${max}): close some, or retry shortly.`;
    writeRaw(socket, json(503, { detail, error: "capacity_exceeded" }, { "Retry-After": String(CAPACITY_RETRY_AFTER_SECONDS) }), head, ownHead?.());
  });
}

/**
 * A connection that sends no request is closed after `idleMs` (node:http would keep it until its headers time-out
 * is next checked: up to 90 s where the docs say 60); once a request arrives the limit is lifted (an event stream
 * may rest for minutes), and after its answer node's keep-alive time applies, at most `idleMs`.
 */
function closeIdle(server: http.Server, idleMs: number): void {
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, idleMs);
  // node:http's own 'timeout' listener destroys a socket whose time is up when nothing else handles it.
  server.on("connection", (socket: net.Socket) => socket.setTimeout(idleMs));
  // 'request' lifts it in `createHttpServer`'s handler (one listener, not two, on the busiest event).
  server.prependListener("checkContinue", busy);
  server.prependListener("checkExpectation", busy);
  server.prependListener("upgrade", busy);
  server.prependListener("connect", busy);
}

export function createHttpServer(h: ServerHandlers): http.Server {
  const requestTimeout = h.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(h.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  // requireHostHeader off: a request without Host gets its 400 from the pipeline (`malformed`), with the
  // contract's error body.
  const server = http.createServer(
    {
      requireHostHeader: false,
      requestTimeout,
      // node:http counts it from the request's first byte (later header lines do not extend it) but only notices
      // it when it next looks: every connectionsCheckingInterval.
      headersTimeout,
      // How often node:http looks for requests over their time: at most a second, so the header deadline holds to
      // within 1 s of what docs/limits.md says (issue 47: every 30 s before, and partial headers were answered 408
      // after 86.6 s where the docs say 60). A look walks the open connections: cheap at the connection cap.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 10))),
    },
    h.idleMs === undefined
      ? h.request
      : (req, res) => {
          busy(req);
          h.request(req, res);
        },
  );
  // An Expect other than 100-continue is ignored (RFC 9110 §10.1.1 allows it) rather than answered with
  // node:http's bare 417, which the contract does not declare.
  server.on("checkExpectation", h.request);
  // `Expect: 100-continue` too: node:http would send 100 Continue at once, inviting a body the pipeline may refuse
  // (credentials, limits, media type); `readBody` sends it when it starts reading.
  server.on("checkContinue", h.request);
  // What node:http cannot parse (bad request line, header names or lengths, headers over 16 KiB) never reaches
  // the pipeline; it is refused here and the connection is closed.
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage ?? undefined;
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    const detail =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "The request was not received in time."
        : err.code === "HPE_HEADER_OVERFLOW"
          ? "The request headers are larger than the gateway accepts (16 KiB)."
          : "Malformed HTTP request.";
    const reply = json(err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400, { detail });
    const raw = (err as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket;
    if (!inFlight && err.code?.startsWith("HPE_") && err.code !== "HPE_HEADER_OVERFLOW" && h.unparsed?.(socket, raw, () => writeRaw(socket, reply, h.head, h.ownHead?.()))) return;
    writeRaw(socket, h.refused ? h.refused(socket, reply, inFlight) : reply, h.head, h.ownHead?.());
  });
  // CONNECT would otherwise get its connection closed without an answer: the gateway is no proxy.
  server.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    writeRaw(socket, json(405, { detail: `${req.method} is not allowed: the gateway is not a proxy.` }), h.head, h.ownHead?.());
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    h.upgrade(req, socket, head).catch(() => writeRaw(socket, json(500, { detail: "Internal server error." })));
  });
  if (h.maxConnections !== undefined) capConnections(server, h.maxConnections, h.addressShare ?? 100, h.head, h.ownHead);
  if (h.idleMs !== undefined) closeIdle(server, h.idleMs);
  return server;
}

/** Listens; resolves with the base URL (an IPv6 address in brackets). */
export function listen(server: http.Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const addr = server.address();
      const h = typeof addr === "object" && addr ? addr.address : host;
      const p = typeof addr === "object" && addr ? addr.port : port;
      resolve(`http://${h.includes(":") ? `[${h}]` : h}:${p}`);
    });
  });
}
