// One request as raw bytes on a fresh connection, and its answer read back (malformed.ts sends what no HTTP client
// would). The answer is read by hand (`parseResponse`): node:http's client cannot send these bytes, and its response
// parser is not exposed apart from a request it sent. Only what a refusal looks like is read: a status line, header
// lines, and a body by Content-Length, by chunks, or up to the close.
import net from "node:net";
import tls from "node:tls";
import type { ExchangeResponse } from "../types.js";

/** Sends `bytes` on a fresh connection; the answer, or null when the connection closed without one. */
export function sendRaw(base: URL, bytes: Buffer, timeoutMs: number): Promise<ExchangeResponse | null> {
  return new Promise((resolve, reject) => {
    const port = Number(base.port || (base.protocol === "https:" ? 443 : 80));
    const host = base.hostname.replace(/^\[|\]$/g, "");
    const socket: net.Socket = base.protocol === "https:" ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect(port, host);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      if (all.length === 0) return err && !/ECONNRESET|EPIPE/.test(String((err as NodeJS.ErrnoException).code)) ? reject(err) : resolve(null);
      resolve(parseResponse(all).response);
    };
    const timer = setTimeout(() => finish(chunks.length ? undefined : new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once(base.protocol === "https:" ? "secureConnect" : "connect", () => socket.write(bytes));
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      if (parseResponse(Buffer.concat(chunks)).complete) finish();
    });
    socket.on("error", (e) => finish(e));
    socket.on("close", () => finish());
  });
}

/** An HTTP/1.1 response read from bytes: whether it is whole yet, and what it says (a 502 stand-in for bytes that are no response). */
export function parseResponse(buf: Buffer): { complete: boolean; response: ExchangeResponse } {
  const end = buf.indexOf("\r\n\r\n");
  const head = buf.subarray(0, end < 0 ? buf.length : end).toString("latin1");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  const headers = new Headers();
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const rest = end < 0 ? Buffer.alloc(0) : buf.subarray(end + 4);
  const length = headers.get("content-length");
  const chunked = /chunked/i.test(headers.get("transfer-encoding") ?? "");
  let body = rest;
  let complete = false;
  const code = Number(status?.[1] ?? 0);
  if (end >= 0 && (code < 200 || code === 204 || code === 304)) {
    // An interim or bodiless answer (101 Switching Protocols: what follows is the new protocol's).
    body = Buffer.alloc(0);
    complete = true;
  } else if (end >= 0 && length !== null) {
    body = rest.subarray(0, Number(length));
    complete = rest.length >= Number(length);
  } else if (end >= 0 && chunked) {
    const decoded = dechunk(rest);
    body = decoded.body;
    complete = decoded.complete;
  }
  if (!status) return { complete, response: { status: 0, headers, body: new Uint8Array(buf) } };
  return { complete, response: { status: Number(status[1]), headers, body: new Uint8Array(body) } };
}

function dechunk(buf: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(buf.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * The request as a shell line that sends the same bytes (curl cannot): printf into nc (or openssl s_client for
 * TLS). `secrets`: each credential in it and the shell variable that stands for it (`$API_KEY_B`).
 */
export function rawReproduction(base: URL, raw: string, secrets: Array<[string, string]> = []): string {
  const port = base.port || (base.protocol === "https:" ? "443" : "80");
  const escaped = [...raw].map((ch) => (ch === "\r" ? "\\r" : ch === "\n" ? "\\n" : ch === "'" ? "'\\''" : ch === "%" ? "%%" : ch === "\\" ? "\\\\" : ch.charCodeAt(0) < 0x20 ? `\\${ch.charCodeAt(0).toString(8).padStart(3, "0")}` : ch)).join("");
  const host = base.hostname.replace(/^\[|\]$/g, "");
  const connect = base.protocol === "https:" ? `openssl s_client -quiet -connect ${host}:${port}` : `nc ${host} ${port}`;
  const shown = secrets.reduce((t, [secret, variable]) => t.split(secret).join(`'"${variable}"'`), escaped);
  return `printf '${shown}' | ${connect}`;
}
