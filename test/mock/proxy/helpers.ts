// Shared set-up of the proxy-mode tests: a gateway in proxy mode in front of a loopback upstream (the project's own
// mock, the verifier's defective server, or a scripted server), its log lines, and its violation list.
import http from "node:http";
import type { ListedViolation } from "../../../src/mock/index.js";
import { contract, startGateway, type TestGateway } from "../../helpers/mock.js";

export interface ViolationsView {
  upstream: string;
  total: number;
  dropped: number;
  violations: ListedViolation[];
}

export interface TestProxy extends TestGateway {
  /** GET /__mock/violations (it answers once every exchange already over is judged). */
  violations(query?: string): Promise<ViolationsView>;
  /** The log lines that report a violation. */
  violationLines(): string[];
}

/** A gateway in proxy mode in front of `upstream`, on a free loopback port, collecting its log lines. */
export async function startProxy(upstream: string, opts: Parameters<typeof startGateway>[0] = {}): Promise<TestProxy> {
  const g = await startGateway({ upstream, ...opts });
  return {
    ...g,
    async violations(query = "") {
      const res = await fetch(`${g.url}/__mock/violations${query}`);
      if (res.status !== 200) throw new Error(`GET /__mock/violations answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as ViolationsView;
    },
    violationLines: () => g.logs.filter((l) => /^\S+ violation /.test(l)),
  };
}

/** `rule` of each listed violation, in order. */
export const rulesOf = (v: ViolationsView) => v.violations.map((x) => x.rule);

export interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

export interface Scripted {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A plain HTTP server on a free loopback port that records each request whole and lets `answer` reply. */
export async function startScripted(answer: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void): Promise<Scripted> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body });
      answer(req, res, body);
    });
  });
  return listening(server, received);
}

/** Listens on a free loopback port; `close` cuts whatever is still open. */
export async function listening(server: http.Server, received: Received[] = []): Promise<Scripted> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** The headers every answer under /v1 carries: CORS, a request id, and the five X-RateLimit-* with values of the Pro plan. */
export function conformingHeaders(): Record<string, string> {
  const h = contract.policy.headers;
  return { "Access-Control-Allow-Origin": "*", "X-Request-Id": "req_upstream0001", [h.limit]: "150", [h.remaining]: "149", [h.reset]: "1795262460", [h.daily_limit]: "10000", [h.daily_remaining]: "9999" };
}

/** An example event of the analysis stream, as the contract gives it, written as one SSE message. */
export function exampleEvent(name: "AnalysisStreamStatusEvent" | "AnalysisStreamEvent"): string {
  const e = contract.doc.components.examples[name].value as { event: string; id: string; data: unknown };
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A plain http request whose answer is read raw: status line, raw headers, body bytes. */
export function rawRequest(url: string, o: { method?: string; headers?: Record<string, string> | string[]; body?: Buffer } = {}) {
  return new Promise<{ status: number; statusMessage: string; rawHeaders: string[]; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method: o.method ?? "GET", headers: o.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(o.body);
  });
}
