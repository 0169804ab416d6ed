// A local HTTP server on 127.0.0.1 that misbehaves on cue, for fault injection into the client: it records every
// request (method, path, headers, body bytes) and answers attempt n as `script(n)` says — drop the connection,
// answer a status, cut a body short, stall before or after the headers, or stream bytes one write at a time.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  /** Read the request, then close the connection without an answer. */
  | { kind: "drop" }
  /** A complete answer. */
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Headers with the Content-Length of `text`, then only its first `cut` bytes, then the connection closes. */
  | { kind: "truncate"; status: number; text: string; cut: number }
  /** Read the request and never answer (until the client goes away). */
  | { kind: "stall" }
  /** Headers and the first `cut` bytes of `text`, then nothing more. */
  | { kind: "stall-body"; status: number; text: string; cut: number }
  /** Headers, then each of `chunks` in its own write (a turn of the event loop apart); `end` closes the response. */
  | { kind: "chunks"; status: number; headers: Record<string, string>; chunks: Buffer[]; end: boolean };

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FaultServer {
  url: string;
  requests: Recorded[];
  /** Responses whose connection the client closed before the server ended them (aborts, timeouts). */
  closedByClient: number;
  /** Resolves when the server has received `n` requests in all. */
  received(n: number): Promise<void>;
  /** Resolves when `n` responses in all were closed by the client. */
  clientClosed(n: number): Promise<void>;
  close(): Promise<void>;
}

const turn = () => new Promise((r) => setImmediate(r));

export async function faultServer(script: (n: number, req: Recorded) => Fault): Promise<FaultServer> {
  const requests: Recorded[] = [];
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const state = { closedByClient: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const rec: Recorded = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(rec);
      res.on("close", () => {
        if (!res.writableEnded) {
          state.closedByClient++;
          notify();
        }
      });
      notify();
      const f = script(requests.length, rec);
      switch (f.kind) {
        case "drop":
          return req.socket.destroy();
        case "status": {
          const text = f.body === undefined ? "" : typeof f.body === "string" ? f.body : JSON.stringify(f.body);
          res.writeHead(f.status, { "Content-Type": "application/json", ...f.headers });
          return res.end(text);
        }
        case "truncate":
        case "stall-body": {
          const bytes = Buffer.from(f.text);
          res.writeHead(f.status, { "Content-Type": "application/json", "Content-Length": String(bytes.length) });
          res.write(bytes.subarray(0, f.cut));
          if (f.kind === "truncate") {
            await turn();
            req.socket.destroy();
          }
          return;
        }
        case "stall":
          return;
        case "chunks": {
          res.writeHead(f.status, f.headers);
          res.flushHeaders();
          req.socket.setNoDelay(true);
          for (const c of f.chunks) {
            if (res.destroyed) return;
            res.write(c);
            await turn();
          }
          if (f.end) res.end();
          return;
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const until = (cond: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (cond() ? resolve() : waiters.push(check));
      check();
    });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    get closedByClient() {
      return state.closedByClient;
    },
    received: (n) => until(() => requests.length >= n),
    clientClosed: (n) => until(() => state.closedByClient >= n),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
