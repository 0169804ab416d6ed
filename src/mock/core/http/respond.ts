// Writing a Reply: on a node:http response (`send`), or as raw HTTP/1.1 on a socket that asked for an upgrade or
// that node:http could not parse (`writeRaw`).
import type http from "node:http";
import { STATUS_TEXT } from "./status-text.js";
import type { Duplex } from "node:stream";
import type { Reply } from "./reply.js";

const NONE: readonly string[] = [];

/**
 * Sends `r` after `head`, the headers every answer carries (a flat [name, value, …] list), and `own`, this
 * request's (its `X-Request-Id`). `close` adds
 * `Connection: close` (the gateway is draining).
 */
export function send(res: http.ServerResponse, r: Reply, head: readonly string[], close: boolean, own: readonly string[] = NONE): void {
  // One flat list: the fastest form writeHead takes (merging objects with a spread, or res.setHeader before
  // writeHead, costs more than the rest of the answer). `r.headers` is only read: a stage may share one object
  // between its answers.
  const flat = head.concat(own, r.rate ?? NONE);
  for (const name in r.headers) flat.push(name, r.headers[name]!);
  if (close && r.headers.Connection === undefined) flat.push("Connection", "close");
  if (r.body) flat.push("Content-Length", String(r.body.length));
  res.writeHead(r.status, flat);
  res.end(r.body ?? undefined);
}

/**
 * Answers on a bare socket (a refused upgrade, an unparseable request) with a plain HTTP response, then closes it;
 * `head` as in `send`.
 */
export function writeRaw(socket: Duplex, r: Reply, head: readonly string[] = NONE, own: readonly string[] = NONE): void {
  if (socket.destroyed) return;
  const body = r.body ?? Buffer.alloc(0);
  const lines = [`HTTP/1.1 ${r.status} ${STATUS_TEXT[r.status] ?? ""}`];
  const flat = head.concat(own, r.rate ?? NONE);
  for (let i = 0; i < flat.length; i += 2) lines.push(`${flat[i]}: ${flat[i + 1]}`);
  for (const [k, v] of Object.entries({ ...r.headers, "Content-Length": String(body.length), Connection: "close" })) lines.push(`${k}: ${v}`);
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n"), body]));
}
