// A response body that may be read as a stream, under its attempt's timeout (decisions C4, L7, P10): each chunk
// must arrive within the timeout of the one before, so long downloads that keep flowing never time out. Loaded by
// the transport with import() the first time a body is read as a stream (`parseAs: "stream"`, or any body once
// middleware is registered, since the transport cannot tell then): most apps never read one, so a bundler puts
// this in a chunk of its own that they never load (npm run bench, "Client size").
import type { Attempt, BodyTimer } from "./attempt.js";

const READERS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"] as const;
type Reader = () => Promise<unknown>;

/**
 * Watches `response`'s body: `response.body` becomes a stream each chunk of which must arrive within the timeout of
 * the one before, and the readers (`json()`, `text()`, …) end the attempt when done and fail with the
 * TimeoutError even when they start after it (fetch would give a plain AbortError then). Own properties of the
 * response rather than a new Response around the stream: the response stays the object fetch made.
 */
export function watchBody(response: Response, a: Attempt, timer: BodyTimer): void {
  const raw = response.body!;
  let timed: ReadableStream<Uint8Array> | undefined;
  Object.defineProperty(response, "body", { configurable: true, get: () => (timed ??= chunksUnderTimeout(raw, a, timer)) });
  const own = response as unknown as Record<string, Reader>;
  for (const name of READERS) {
    const read = own[name];
    if (read) own[name] = () => settled(read.call(response), a, response, timer);
  }
}

async function settled<T>(reading: Promise<T>, a: Attempt, response: Response, timer: BodyTimer): Promise<T> {
  try {
    const result = await reading;
    timer.settle(a, response, true);
    return result;
  } catch (e) {
    timer.settle(a, response, false);
    throw a.error ?? e;
  }
}

/** `raw`, with each chunk awaited under the timeout (extended for the next chunk). */
function chunksUnderTimeout(raw: ReadableStream<Uint8Array>, a: Attempt, timer: BodyTimer): ReadableStream<Uint8Array> {
  const reader = raw.getReader();
  const response = a.response!;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        timer.settle(a, response, false);
        throw a.error ?? e;
      }
      if (chunk.done) {
        timer.settle(a, response, true);
        controller.close();
      } else {
        timer.extend(a);
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      timer.settle(a, response, false);
      return reader.cancel(reason);
    },
  });
}
