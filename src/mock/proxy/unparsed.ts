// Proxy mode: a request node:http cannot parse (a control byte in a header, a bad request line, a header line
// without a colon) cannot be forwarded as a request, so its bytes are: they go to the upstream on a connection of
// their own, and the upstream's answer comes back byte for byte. The proxy stays transparent for them too, and the
// backend's own refusal (its status, error body, CORS and rate-limit headers) is what the client, and verify's
// malformed-request checks, see (decision PX11). Hand-written: no library relays an unparsed HTTP request, and it is
// only a socket pipe. Not judged (the judge needs a request), and the upstream's base path is not added: with a
// base path, bytes that are not the whole request, or an upstream that cannot be reached before it answered a
// byte, the proxy answers its own 400 as before (without rate-limit headers: it keeps no limits, G26).
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import type { Upstream } from "./upstream.js";

/** Relays `raw` to the upstream and its answer back to `socket`; false when it cannot (the caller answers 400). */
export function relayUnparsed(u: Upstream, socket: Duplex, raw: Buffer | undefined, timeoutMs: number, refuse: () => void): boolean {
  if (!raw?.length || u.basePath || !raw.includes("\r\n\r\n")) return false;
  const upstream = u.protocol === "https:" ? tls.connect({ host: u.hostname, port: u.port, servername: u.hostname }) : net.connect({ host: u.hostname, port: u.port });
  upstream.setTimeout(timeoutMs, () => upstream.destroy());
  let answered = false;
  upstream.once("data", () => (answered = true));
  const end = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on("error", () => (answered || !socket.writable ? end() : (upstream.destroy(), refuse())));
  socket.on("error", end);
  socket.on("close", () => upstream.destroy());
  upstream.on("close", () => socket.end());
  upstream.pipe(socket, { end: false });
  upstream.end(raw);
  return true;
}
