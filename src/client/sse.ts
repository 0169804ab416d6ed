// Server-Sent Events of GET /v1/analysis/{id}/stream, parsed with eventsource-parser and typed by the
// contract's `AnalysisStreamEvent` union: the SSE `event:` and `id:` fields become `event` and `id`, the JSON
// of the `data:` field becomes `data`.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { components } from "../../generated/schema.js";
import { StreamError } from "./errors.js";

export type AnalysisStreamEvent = components["schemas"]["AnalysisStreamEvent"];
export type AnalysisStreamEventKind = AnalysisStreamEvent["event"];

/** Every event kind of the contract; the check below stops compiling if the contract adds or drops one. */
export const ANALYSIS_STREAM_EVENT_KINDS = ["status", "transcript.segment", "signal", "alert", "completed", "error"] as const;
type Listed = (typeof ANALYSIS_STREAM_EVENT_KINDS)[number];
const exhaustive: [Exclude<AnalysisStreamEventKind, Listed>, Exclude<Listed, AnalysisStreamEventKind>] extends [never, never]
  ? true
  : false = true;
void exhaustive;

const KINDS: ReadonlySet<string> = new Set(ANALYSIS_STREAM_EVENT_KINDS);

/** The last event of a stream: `completed`, `error`, or `status` with `canceled`; the server closes after it. */
export function isFinalEvent(e: AnalysisStreamEvent): boolean {
  return e.event === "completed" || e.event === "error" || (e.event === "status" && e.data.status === "canceled");
}

/**
 * Reads an event stream and yields its messages as they complete; comments (`: keep-alive`) are skipped, an
 * event cut off by the end of the stream is dropped (as the SSE standard says). Ends quietly when `signal`
 * aborts. `onRetry` receives the server's `retry:` field.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  onRetry?: (ms: number) => void,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (m) => void queue.push(m), onRetry });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // SSE lines may end in CR, LF or CRLF. eventsource-parser holds a CR that ends a chunk until the next byte shows
  // whether an LF follows, so an event ended by a lone CR would wait for more data (forever, if the server then
  // stays quiet or closes). Line endings are made LF here, remembering a chunk-final CR to drop the LF after it.
  let pendingCr = false;
  const lf = (text: string) => {
    if (pendingCr && text.startsWith("\n")) text = text.slice(1);
    if (text) pendingCr = text.endsWith("\r");
    return text.replace(/\r\n?/g, "\n");
  };
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal?.aborted) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (signal?.aborted) return;
        throw e;
      }
      if (chunk.done) {
        parser.feed(lf(decoder.decode()));
      } else {
        parser.feed(lf(decoder.decode(chunk.value, { stream: true })));
      }
      for (let i = 0; i < queue.length; i++) {
        if (signal?.aborted) return;
        yield queue[i]!;
      }
      queue.length = 0;
      if (chunk.done) return;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {});
  }
}

/** Types one SSE message; undefined for an event kind the contract does not know (skipped, for forward compatibility). */
export function toAnalysisStreamEvent(m: EventSourceMessage): AnalysisStreamEvent | undefined {
  if (m.event === undefined || !KINDS.has(m.event)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(m.data);
  } catch {
    throw new StreamError(`event "${m.event}"${m.id ? ` (${m.id})` : ""} carries a data field that is not JSON`);
  }
  if (typeof data !== "object" || data === null) {
    throw new StreamError(`event "${m.event}"${m.id ? ` (${m.id})` : ""} carries data that is not a JSON object`);
  }
  return { event: m.event, id: m.id ?? "", data } as AnalysisStreamEvent;
}
