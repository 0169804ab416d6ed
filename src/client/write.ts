// The write path: what a call of a write method (WRITE_METHODS, contract.generated.ts) needs before it is sent. Its
// Idempotency-Key, when the operation takes one (the contract's rule, write.generated.ts), made once per call so every
// attempt sends the same (idempotency.ts), and an object body encoded as the operation's form (forms.ts). Loaded by
// the client with import() the first time it sends a write (decision C9): reads never do, so a bundler puts this and
// the contract's facts it reads in a chunk of its own that an app loads with its first write (npm run bench, "Client
// size"). It imports nothing the client core imports (the core passes the header's name in), so it stays one chunk.
import { withForm } from "./forms.js";
import { setsHeader, withHeader, type Init } from "./init.js";
import { FORM_BODIES, KEYED_METHODS, KEYED_PREFIXES, NOT_KEYED } from "./write.generated.js";

/** Whether the operation `method` `path` (a template of the contract) takes an Idempotency-Key. */
export function takesKey(method: string, path: string): boolean {
  return KEYED_METHODS.includes(method) && KEYED_PREFIXES.some((p) => path.startsWith(p)) && !NOT_KEYED.has(`${method} ${path}`);
}

/** A random UUID: `crypto.randomUUID` where the platform has it (not in a page served over plain http). */
export function newKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  // RFC 9562 version 4 by hand, from getRandomValues, which every platform this client runs on has.
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The init of a call of `method` `path` (a template of the contract): with a new key in `keyHeader` when the operation
 * takes one, unless the caller set one, and an object body encoded as the operation's form, when its body is one.
 */
export function write(method: string, path: string, init: Init, keyHeader: string): Init {
  if (takesKey(method, path) && !setsHeader(init, keyHeader)) init = withHeader(init, keyHeader, newKey());
  const form = FORM_BODIES[`${method} ${path}`];
  return form ? withForm(form, init) : init;
}

/** A body sent as it is; the JSON serializer is for the others. */
const isRawBody = (body: unknown): boolean =>
  [Blob, ArrayBuffer, FormData, URLSearchParams, ReadableStream].some((type) => body instanceof type) || ArrayBuffer.isView(body);

/**
 * A body as openapi-fetch sends it: a Blob, bytes, FormData, URLSearchParams or a stream as they are (a stream, the
 * caller's, also noted in `streamed`: sent once, never buffered or retried, transport.ts), a string as it is under a
 * content type other than JSON, and any other through `json`, the client's serializer of JSON bodies.
 */
export function serializeBody(body: unknown, headers: unknown, streamed: WeakSet<object>, json: (body: unknown, headers?: unknown) => unknown): unknown {
  if (body instanceof ReadableStream) streamed.add(body);
  if (isRawBody(body)) return body;
  const type = headers instanceof Headers && headers.get("Content-Type");
  return typeof body === "string" && type && !/json/i.test(type) ? body : json(body, headers);
}

/** `client.streamUpload`: POST /v1/analysis/stream-upload with the media as an `application/octet-stream` body. */
export function streamUpload<R>(post: (path: string, init: object) => R, { query, body, ...call }: { query: unknown; body: unknown }): R {
  return post("/v1/analysis/stream-upload", { params: { query }, body, headers: { "Content-Type": "application/octet-stream" }, ...call });
}
