// The events of an analysis (GET /v1/analysis/{id}/stream) as a typed async iterator, and a URL for a browser
// `EventSource`. Entry point `@avt/api-contract/streaming` (also exported by the package root): kept out of the
// client object so that an app that does not stream does not bundle the SSE parser.
import type { ApiClient } from "./client.js";
import { StreamError, toApiError } from "./errors.js";
import { internalsOf, operationUrl } from "./internals.js";
import { isFinalEvent, readEventStream, toAnalysisStreamEvent, type AnalysisStreamEvent } from "./sse.js";
import { sleep } from "./timers.js";
import { backoffMs, RETRY_DEFAULTS } from "./options.js";
import { withToken } from "./websocket.js";

export { ANALYSIS_STREAM_EVENT_KINDS, isFinalEvent, readEventStream, toAnalysisStreamEvent } from "./sse.js";
export type { AnalysisStreamEvent, AnalysisStreamEventKind } from "./sse.js";

export interface EventStreamOptions {
  /** Resume after this event id (sent as `Last-Event-ID`); default: every event from the first. */
  lastEventId?: string;
  /** Aborting ends the iteration quietly and closes the connection. */
  signal?: AbortSignal;
  /** Reopen a stream that ends or breaks before its last event, resuming after the last id. Default 5 tries in a row. */
  reconnect?: false | { maxAttempts?: number };
  /** Timeout for the stream to open (response headers), per attempt. */
  timeoutMs?: number;
}

/**
 * Opens the stream once (after `lastEventId`, if any); its body, or undefined when there is nothing to read: `signal`
 * aborted it while opening, or the server answered 204 (a finished analysis whose last event `lastEventId` names).
 */
async function openStream(client: ApiClient, analysisId: string, lastEventId: string | undefined, opts: EventStreamOptions) {
  const { signal } = opts;
  let opened;
  try {
    opened = await client.GET("/v1/analysis/{id}/stream", {
      params: { path: { id: analysisId }, header: lastEventId === undefined ? undefined : { "Last-Event-ID": lastEventId } },
      headers: { Accept: "text/event-stream" },
      parseAs: "stream",
      signal,
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
    });
  } catch (e) {
    if (signal?.aborted) return undefined;
    throw e;
  }
  const { data, error, response } = opened;
  if (!response.ok) throw toApiError(response, error);
  if (response.status === 204) return undefined;
  const type = response.headers.get("Content-Type");
  if (type && !/^text\/event-stream\b/i.test(type)) {
    void data?.cancel().catch(() => {});
    throw new StreamError(`the event stream of analysis ${analysisId} answered ${type}, not text/event-stream`);
  }
  return data ?? null;
}

/**
 * The events of an analysis (GET /v1/analysis/{id}/stream), typed by `AnalysisStreamEvent`; ends after the last
 * one. Credentials go in headers, never in the URL. Throws `ApiError` when the stream cannot open, `StreamError`
 * for a stream the contract does not allow or one that keeps ending before its last event.
 */
export async function* streamAnalysisEvents(client: ApiClient, analysisId: string, opts: EventStreamOptions = {}): AsyncGenerator<AnalysisStreamEvent, void, undefined> {
  const { timers, retry } = internalsOf(client);
  const { signal } = opts;
  const maxReconnects = opts.reconnect === false ? 0 : (opts.reconnect?.maxAttempts ?? 5);
  const policy = retry ?? RETRY_DEFAULTS;
  let lastEventId = opts.lastEventId;
  let serverRetryMs: number | undefined;
  let failures = 0;
  for (;;) {
    const body = await openStream(client, analysisId, lastEventId, opts);
    if (body === undefined) return; // aborted while opening, or finished (204)
    let cause: unknown;
    if (body) {
      try {
        for await (const message of readEventStream(body, signal, (ms) => (serverRetryMs = ms))) {
          const event = toAnalysisStreamEvent(message);
          if (!event) continue;
          if (message.id) lastEventId = message.id;
          failures = 0;
          yield event;
          if (isFinalEvent(event)) return;
        }
      } catch (e) {
        if (e instanceof StreamError) throw e;
        cause = e; // the connection broke: reconnect below
      }
    }
    if (signal?.aborted) return;
    if (++failures > maxReconnects) {
      throw new StreamError(`the event stream of analysis ${analysisId} ended before its last event`, { cause });
    }
    try {
      await sleep(timers, serverRetryMs ?? backoffMs(policy, failures), signal);
    } catch {
      return; // aborted while waiting
    }
  }
}

/** A URL for a browser `EventSource` on an analysis's events, with the `token` query parameter (TLS only). */
export async function eventSourceUrl(client: ApiClient, analysisId: string): Promise<string> {
  const internals = internalsOf(client);
  return withToken(operationUrl(internals, "/v1/analysis/{id}/stream", { path: { id: analysisId } }), await internals.queryToken(), false);
}
