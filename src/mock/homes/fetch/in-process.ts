// The in-process door to a pipeline: a WHATWG `fetch` (Request in, Response out) that runs the same handler
// node:http runs (serve.ts `serveRequests`) with no socket and no port, so it answers exactly what the server
// answers: status, headers (CORS, rate limits), body, and an event stream as a ReadableStream that follows the log.
//
// Hand-written rather than a library's: light-my-request (fastify's inject) and similar buffer the whole answer
// until it ends, and an event stream ends only when its analysis does. The request is the part of
// http.IncomingMessage the stages read (method, url, headers and rawHeaders, the peer's address, the body as one
// 'data' event then 'end'); the response is the small part of http.ServerResponse the pipeline writes with
// (writeHead, write, flushHeaders, end, destroy, 'close'), turned into a Response as soon as the head is known.
// No node:http or node:events: this is the core's door, and it runs in a browser too (MSW's service worker). Bytes
// are Uint8Array, never Buffer: under a DOM test environment (jsdom) Buffer is not the realm's Uint8Array.
import type http from "node:http";
import { Emitter } from "./emitter.js";
import { STATUS_TEXT } from "../../core/http/status-text.js";

/** What node:http calls for each request (serve.ts `serveRequests`). */
export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
export type InProcessFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** The peer every in-process request comes from: this machine (the `/__mock/` controls take only loopback). */
const LOOPBACK = "127.0.0.1";
/** Statuses whose Response may have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function inProcessFetch(handler: RequestHandler): InProcessFetch {
  return async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
    const req = new InProcessRequest(request, body);
    const res = new InProcessResponse(req, request.method === "HEAD");
    request.signal.addEventListener("abort", () => res.abort(request.signal.reason), { once: true });
    handler(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
    return res.response;
  };
}

/**
 * The request as node:http's parser would have made it: method, target, lower-case headers (Host included), the
 * raw list, and the body, which flows (one 'data', then 'end') once a stage listens, as a stream's does.
 */
class InProcessRequest extends Emitter {
  readonly method: string;
  readonly url: string;
  readonly httpVersion = "1.1";
  readonly headers: Record<string, string> = {};
  readonly rawHeaders: string[] = [];
  readonly socket: { remoteAddress: string; remotePort: number; encrypted: boolean; destroyed: boolean };
  /** The whole request has arrived (nothing is left to linger over: serve.ts reads `complete`). */
  readonly complete = true;
  destroyed = false;
  private flowing = false;

  constructor(
    request: Request,
    private readonly body: Uint8Array | null,
  ) {
    super();
    const url = new URL(request.url);
    this.method = request.method;
    this.url = url.pathname + url.search;
    this.socket = { remoteAddress: LOOPBACK, remotePort: 0, encrypted: url.protocol === "https:", destroyed: false };
    const headers = this.headers;
    headers.host = url.host;
    this.rawHeaders.push("Host", url.host);
    // Lower-cased here: fetch's own Headers are, but not every implementation's (happy-dom keeps the case given).
    request.headers.forEach((value, name) => {
      const key = name.toLowerCase();
      headers[key] = headers[key] === undefined || key === "host" ? value : `${headers[key]}, ${value}`;
      this.rawHeaders.push(name, value);
    });
    // fetch sends a length for every body it knows whole; the pipeline reads it (hasBody, the body limits).
    if (body && body.length > 0 && headers["content-length"] === undefined) {
      headers["content-length"] = String(body.length);
      this.rawHeaders.push("Content-Length", headers["content-length"]);
    }
  }

  override on(event: string, fn: (...args: any[]) => void): this { // eslint-disable-line @typescript-eslint/no-explicit-any
    super.on(event, fn);
    if (event === "data" || event === "end") this.resume();
    return this;
  }

  /** Starts the body flowing, after the listeners of this turn are attached. */
  resume(): this {
    if (this.flowing) return this;
    this.flowing = true;
    queueMicrotask(() => {
      if (this.body && this.body.length > 0) this.emit("data", this.body);
      this.emit("end");
    });
    return this;
  }

  pause(): this {
    return this;
  }
}

/** The part of http.ServerResponse the pipeline writes with, as a Response whose body streams. */
class InProcessResponse extends Emitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  private head: Array<[string, string]> = [];
  private flushed = false;
  private closed = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly body: ReadableStream<Uint8Array>;
  private settle!: { resolve: (r: Response) => void; reject: (e: unknown) => void };
  readonly response: Promise<Response>;

  constructor(
    readonly req: InProcessRequest,
    private readonly headOnly: boolean,
  ) {
    super();
    this.response = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => void (this.controller = c),
      // The reader stopped (cancel, or the Response dropped): the client went away, as a closed connection.
      cancel: () => this.finish(),
    });
  }

  get socket(): unknown {
    return this.req.socket;
  }

  writeHead(status: number, headers?: readonly string[] | Record<string, string>): this {
    this.statusCode = status;
    if (Array.isArray(headers)) for (let i = 0; i < headers.length; i += 2) this.head.push([headers[i]!, headers[i + 1]!]);
    else for (const [name, value] of Object.entries(headers ?? {})) this.head.push([name, value as string]);
    this.headersSent = true;
    return this;
  }

  writeContinue(): void {}

  /** The head is known: the Response is handed over now, its body following as it is written. */
  flushHeaders(): void {
    if (this.flushed) return;
    this.flushed = true;
    if (!this.headersSent) this.writeHead(this.statusCode);
    const status = this.statusCode;
    const streams = !this.headOnly && !NULL_BODY.has(status);
    const headers = new Headers();
    for (const [name, value] of this.head) headers.append(name, value);
    this.settle.resolve(new Response(streams ? this.body : null, { status, statusText: STATUS_TEXT[status] ?? "", headers }));
  }

  write(chunk: string | Uint8Array, done?: () => void): boolean {
    this.flushHeaders();
    if (!this.writableEnded) this.enqueue(chunk);
    done?.();
    return true;
  }

  end(chunk?: string | Uint8Array | null): this {
    if (this.writableEnded) return this;
    this.flushHeaders();
    if (chunk) this.enqueue(chunk);
    this.writableEnded = true;
    try {
      this.controller.close();
    } catch {
      // the reader had already gone
    }
    this.emit("finish");
    this.finish();
    return this;
  }

  /** The connection broken (a fault rule's cut): the body errors, as a dropped connection errors fetch's. */
  destroy(error?: Error): this {
    this.flushHeaders();
    try {
      this.controller.error(error ?? new TypeError("terminated: the mock closed the connection"));
    } catch {
      // already closed
    }
    this.finish();
    return this;
  }

  /** The request's signal aborted: the answer is not wanted any more. */
  abort(reason: unknown): void {
    this.settle.reject(reason);
    this.destroy(reason instanceof Error ? reason : undefined);
  }

  private enqueue(chunk: string | Uint8Array): void {
    if (this.headOnly) return;
    try {
      this.controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
    } catch {
      // the reader has gone: what is written now goes nowhere, as on a closed connection
    }
  }

  /** 'close', once: what the pipeline listens for to end a stream and write the request's log line. */
  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.destroyed = true;
    this.emit("close");
    this.req.emit("close");
  }
}
