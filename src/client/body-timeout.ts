// A response body that may be read as a stream, under its attempt's timeout (decisions C4, L7, P10): each chunk
// must arrive within the timeout of the one before, so long downloads that keep flowing never time out. Loaded by
// the transport with import() the first time a body is read as a stream (`parseAs: "stream"`, or any body once
// middleware is registered, since the transport cannot tell then): most apps never read one, so a bundler puts
// this in a chunk of its own that they never load (npm run bench, "Client size").
import type { Attempt, BodyTimer } from "./attempt.js";

const READERS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"] as const;
const WATCH = Symbol("body under timeout");

interface Watched {
  a: Attempt;
  timer: BodyTimer;
  raw: ReadableStream<Uint8Array>;
  timed?: ReadableStream<Uint8Array>;
}
type WatchedResponse = Response & { [WATCH]: Watched };

/** The readers and `body` getter a watched response gets, shared by all: they find their attempt under WATCH. */
const watching: PropertyDescriptorMap = {
  body: {
    configurable: true,
    get(this: WatchedResponse) {
      const w = this[WATCH];
      return (w.timed ??= chunksUnderTimeout(w.raw, w.a, w.timer));
    },
  },
};
for (const name of READERS) {
  watching[name] = {
    configurable: true,
    writable: true,
    async value(this: WatchedResponse) {
      const { a, timer } = this[WATCH];
      try {
        const result: unknown = await (Object.getPrototypeOf(Object.getPrototypeOf(this)) as Record<string, () => Promise<unknown>>)[name]!.call(this);
        timer.settle(a, this, true);
        return result;
      } catch (e) {
        timer.settle(a, this, false);
        throw a.error ?? e;
      }
    },
  };
}

/** The prototype of a watched response, one per response class (fetch polyfills have their own). */
const prototypes = new WeakMap<object, object>();

/**
 * Watches `response`'s body: `response.body` becomes a stream each chunk of which must arrive within the timeout of
 * the one before, and the readers (`json()`, `text()`, …) end the attempt when done and fail with the
 * TimeoutError even when they start after it (fetch would give a plain AbortError then). The response keeps its
 * object but gets a prototype with these (a new Response around the stream, or own properties, cost more).
 */
export function watchBody(response: Response, a: Attempt, timer: BodyTimer): void {
  (response as WatchedResponse)[WATCH] = { a, timer, raw: response.body! };
  const base = Object.getPrototypeOf(response) as object;
  let proto = prototypes.get(base);
  if (!proto) {
    const own = Object.entries(watching).filter(([name]) => name === "body" || typeof (base as Record<string, unknown>)[name] === "function");
    prototypes.set(base, (proto = Object.create(base, Object.fromEntries(own)) as object));
  }
  Object.setPrototypeOf(response, proto);
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
