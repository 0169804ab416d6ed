// Sends one request and reads its response, bounded: a time-out for the headers and the whole body, a cap on the
// bytes kept, and a short reading window for event streams (they may stay open for as long as the analysis runs;
// the events that arrived in the window are what the checks see). Redirects are not followed: a 3xx is an answer.
import type { ExchangeRequest, ExchangeResponse } from "../types.js";

export interface SendOptions {
  /** Time for the headers and the whole body, ms. */
  timeoutMs: number;
  /** How long an event stream is read before the verifier hangs up, ms. */
  streamWindowMs: number;
  /** Bytes of a body kept; the rest is read and dropped. */
  maxBodyBytes: number;
  /** The fetch to send with (tests inject one, as openapi-fetch's do). */
  fetch?: typeof fetch;
  /** Sends raw bytes and reads the answer (raw-http.ts `sendRaw`); with an injected fetch and none, no raw request is sent. */
  raw?: (base: URL, bytes: Buffer, timeoutMs: number) => Promise<ExchangeResponse | null>;
}

export const DEFAULT_SEND_OPTIONS: SendOptions = { timeoutMs: 30_000, streamWindowMs: 2_000, maxBodyBytes: 8 * 1024 * 1024 };

export class TransportError extends Error {}

export async function send(req: ExchangeRequest, o: SendOptions = DEFAULT_SEND_OPTIONS): Promise<ExchangeResponse> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new TransportError(`no complete answer within ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    let res: Response;
    try {
      res = await (o.fetch ?? fetch)(req.url, { method: req.method, headers: req.headers, body: req.body ? new Uint8Array(req.body) : undefined, redirect: "manual", signal: ac.signal });
    } catch (e) {
      throw new TransportError(describe(e));
    }
    const stream = /^text\/event-stream/i.test(res.headers.get("content-type") ?? "");
    const { body, truncated } = await readBody(res, o, stream);
    return { status: res.status, headers: res.headers, body, ...(truncated ? { truncated } : {}) };
  } finally {
    clearTimeout(timer);
  }
}

async function readBody(res: Response, o: SendOptions, stream: boolean): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!res.body) return { body: new Uint8Array(), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let windowOver = false;
  const window = stream ? setTimeout(() => ((windowOver = true), void reader.cancel().catch(() => {})), o.streamWindowMs) : null;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        if (windowOver) break;
        throw new TransportError(`the body broke off: ${describe(e)}`);
      }
      if (r.done) break;
      if (size < o.maxBodyBytes) chunks.push(r.value.subarray(0, o.maxBodyBytes - size));
      size += r.value.length;
    }
  } finally {
    if (window) clearTimeout(window);
  }
  truncated = windowOver || size > o.maxBodyBytes;
  return { body: Buffer.concat(chunks), truncated };
}

function describe(e: unknown): string {
  const err = e as Error & { cause?: Error & { code?: string } };
  if (err?.name === "AbortError" || err instanceof TransportError) return err.message;
  return err?.cause ? `${err.cause.code ?? err.cause.message}` : String(err?.message ?? e);
}
