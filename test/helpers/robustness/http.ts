// Raw HTTP for the robustness tests and `npm run fuzz`: node:http with a keep-alive agent (no client library
// that would normalise paths, merge duplicate headers or refuse odd values), and a bare socket for requests that
// are not even valid HTTP. Both give the status, every header line as sent, and the body.
import http from "node:http";
import net from "node:net";

export interface RawResponse {
  status: number;
  /** Header lines as received, in order, duplicates kept: [name, value][] (names lower case). */
  headers: Array<[string, string]>;
  body: Buffer;
  /** The server closed the connection after this response (Connection: close, or the socket ended). */
  closed: boolean;
}

export interface RawRequest {
  method: string;
  /** Sent exactly as given (no normalisation of `..`, `%2e` or duplicate slashes). */
  path: string;
  /** Header lines, duplicates allowed. Values are latin1 strings, so UTF-8 bytes go as they are. */
  headers?: Array<[string, string]>;
  body?: Buffer | null;
  /**
   * Huge bodies: the Content-Length to declare; only `body` (a prefix) is written, then the client waits for
   * the answer without ending the request, as a client would while still uploading.
   */
  declaredLength?: number;
  /** Send `body` with Transfer-Encoding: chunked, in `chunks` pieces (default one). */
  chunked?: boolean;
  /** Give up after this long without a complete response. Default 10 s. */
  timeoutMs?: number;
  /** Leave out the Host header (otherwise added unless `headers` has one). */
  omitHost?: boolean;
}

export const MAX_BODY_KEPT = 1 << 20;

/** Reads a header of a RawResponse (first line with that name). */
export function header(r: RawResponse, name: string): string | undefined {
  const n = name.toLowerCase();
  return r.headers.find(([k]) => k === n)?.[1];
}

/** A keep-alive agent for the fuzz runs; `destroy()` it when done. */
export function keepAliveAgent(maxSockets = 8): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}

/**
 * Sends one request with node:http. Resolves with the response once its body ended (bodies longer than 1 MiB
 * are cut there), rejects when the connection fails before a response or after `timeoutMs`.
 */
export function rawRequest(base: URL, r: RawRequest, agent?: http.Agent): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const flat: string[] = [];
    const headers = [...(r.headers ?? [])];
    const has = (n: string) => headers.some(([k]) => k.toLowerCase() === n);
    if (!has("host") && !r.omitHost) headers.unshift(["Host", base.host]);
    if (r.declaredLength !== undefined) headers.push(["Content-Length", String(r.declaredLength)]);
    else if (r.chunked) {
      if (!has("transfer-encoding")) headers.push(["Transfer-Encoding", "chunked"]);
    } else if (r.body && !has("content-length")) headers.push(["Content-Length", String(r.body.length)]);
    for (const [k, v] of headers) flat.push(k, v);
    let settled = false;
    const req = http.request({
      host: base.hostname,
      port: base.port,
      method: r.method,
      path: r.path,
      headers: flat as unknown as http.OutgoingHttpHeaders, // node:http takes raw [name, value, ...] arrays too
      agent: agent ?? false,
    });
    const timer = setTimeout(() => fail(new Error(`no complete response within ${r.timeoutMs ?? 10_000} ms`)), r.timeoutMs ?? 10_000);
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(e);
    };
    req.on("error", fail);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < MAX_BODY_KEPT) chunks.push(c);
        size += c.length;
      });
      res.on("error", fail);
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        const closed = /close/i.test(String(res.headers.connection ?? ""));
        // A request whose body was not sent in full cannot leave its socket in the pool.
        if (r.declaredLength !== undefined) req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks), closed });
      });
    });
    if (r.declaredLength !== undefined) {
      if (r.body?.length) req.write(r.body);
      req.flushHeaders();
      return; // left open: the server must answer without the rest
    }
    if (r.body?.length) req.write(r.body);
    req.end();
  });
}

/**
 * Writes `bytes` to a fresh TCP connection and reads until the server closes it (or `timeoutMs`): for requests
 * node:http refuses to send (header names with non-ASCII bytes, conflicting lengths, bare LF...). Resolves with
 * the first response parsed out of what came back, or null when the server closed without answering.
 */
export function rawExchange(base: URL, bytes: Buffer, timeoutMs = 5000): Promise<RawResponse | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server neither answered nor closed within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => {}); // a reset after the answer is fine; "close" decides
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    socket.write(bytes);
  });
}

/** Parses one HTTP/1.1 response (status line, headers, Content-Length body) out of raw bytes. */
export function parseResponse(raw: Buffer): RawResponse | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const lines = raw.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!m) return null;
  const headers = lines.slice(1).map((l) => {
    const i = l.indexOf(":");
    return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
  });
  const length = Number(headers.find(([k]) => k === "content-length")?.[1] ?? NaN);
  const rest = raw.subarray(end + 4);
  const body = Number.isFinite(length) ? rest.subarray(0, length) : rest;
  return { status: Number(m[1]), headers, body, closed: true };
}
