// The Python row of `npm run bench` (issue 23): sequential calls per second through `analysis_api.Client` against
// `http.client` with one keep-alive connection by hand, and the peak memory of a 200 MiB upload, from bytes and
// from a `pathlib.Path`. The server is a node:http one on loopback that answers at once (and drains uploads), so
// the figures are the client's own cost. The measuring is in scripts/bench/client/python_client.py.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ROOT } from "../../lib/paths.js";
import { median, timed } from "../lib.js";

export interface PythonBench {
  python: string;
  calls: { rounds: number; calls: number; samples: { client: number[]; byHand: number[] }; perCallMicros: { client: number; byHand: number } };
  median: { client: number; byHand: number };
  ratio: number;
  /** By hand's median µs per call ÷ the client's, the two taking turns call by call. */
  perCallRatio: number;
  upload: { mib: number; baselineKiB: number; bytesKiB: number; pathKiB: number; bytesOverFile: number; pathOverFile: number };
  /** Items/s walking a 1,000-item list (10 pages of 100): iterating the client's page ÷ a cursor loop by hand
   * (issue 34), median of the rounds' ratios (each round `walks` walks); `perWalkRatio`: by hand's median µs per
   * walk ÷ the client's, the two taking turns walk by walk. */
  pages: {
    rounds: number;
    walks: number;
    samples: { client: number[]; byHand: number[] };
    ratio: number;
    perWalkMicros: { client: number; byHand: number };
    perWalkRatio: number;
  };
}

const ANALYSIS = JSON.stringify({ id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", status: "completed", media_type: "audio", duration_seconds: 612.4 });
const PAGE_SIZE = 100;
const PAGE_COUNT = 10;
/** The list `GET /v1/analyses` answers: 10 pages of 100, the cursor being the next page's number. */
const PAGES = Array.from({ length: PAGE_COUNT }, (_, p) =>
  JSON.stringify({
    data: Array.from({ length: PAGE_SIZE }, (_, i) => ({ ...(JSON.parse(ANALYSIS) as object), id: `anl_${String(p * PAGE_SIZE + i).padStart(26, "0")}` })),
    next_cursor: p + 1 < PAGE_COUNT ? `c${p + 1}` : null,
    has_more: p + 1 < PAGE_COUNT,
  }),
);

function answer(req: http.IncomingMessage): string {
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname !== "/v1/analyses" || req.method !== "GET") return ANALYSIS;
  return PAGES[Number((url.searchParams.get("cursor") ?? "c0").slice(1))] ?? PAGES[0]!;
}

function server(): Promise<http.Server> {
  const s = http.createServer((req, res) => {
    req.resume(); // uploads are drained, not kept
    req.on("end", () => {
      const body = answer(req);
      res.writeHead(req.method === "POST" ? 201 : 200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  s.keepAliveTimeout = 60_000;
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

async function py<T>(args: string[]): Promise<T> {
  const python = process.env.PYTHON ?? "python3";
  const r = await timed(python, [path.join(ROOT, "scripts/bench/client/python_client.py"), ...args], { cwd: ROOT });
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as T;
}

export async function pythonBench(opts: { rounds: number; calls: number; mib: number }): Promise<PythonBench> {
  const s = await server();
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  try {
    const calls = await py<PythonBench["calls"]>(["calls", url, String(opts.rounds), String(opts.calls)]);
    const ratios = calls.samples.client.map((c, i) => c / calls.samples.byHand[i]!);
    const walked = await py<Omit<PythonBench["pages"], "ratio" | "perWalkRatio">>(["pages", url, String(opts.rounds)]);
    const pages = {
      ...walked,
      ratio: median(walked.samples.client.map((c, i) => c / walked.samples.byHand[i]!)),
      perWalkRatio: walked.perWalkMicros.byHand / walked.perWalkMicros.client,
    };
    type Up = { peakKiB: number; rssBeforeKiB: number };
    const none = await py<Up>(["upload", url, "none", String(opts.mib)]);
    const bytes = await py<Up>(["upload", url, "bytes", String(opts.mib)]);
    const file = await py<Up>(["upload", url, "path", String(opts.mib)]);
    const fileKiB = opts.mib * 1024;
    return {
      python: process.env.PYTHON ?? "python3",
      calls,
      median: { client: median(calls.samples.client), byHand: median(calls.samples.byHand) },
      ratio: median(ratios),
      perCallRatio: calls.perCallMicros.byHand / calls.perCallMicros.client,
      pages,
      upload: {
        mib: opts.mib,
        baselineKiB: none.peakKiB,
        bytesKiB: bytes.peakKiB,
        pathKiB: file.peakKiB,
        bytesOverFile: (bytes.peakKiB - bytes.rssBeforeKiB) / fileKiB,
        pathOverFile: (file.peakKiB - file.rssBeforeKiB) / fileKiB,
      },
    };
  } finally {
    s.closeAllConnections();
    s.close();
  }
}
