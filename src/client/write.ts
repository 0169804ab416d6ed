// What a write needs before it is sent: its Idempotency-Key, made once per call so every attempt sends the same
// (idempotency.ts), and an object body encoded as the operation's form (forms.ts). Loaded by the client with
// import() the first time a call needs either (decision C16): reads never do, so a bundler puts this in a chunk of
// its own that an app loads with its first keyed or form write (npm run bench, "Client size").
// It imports nothing the client core imports (the core passes the contract's names in), so that it stays one chunk.
import { withForm } from "./forms.js";
import { setsHeader, withHeader, type Init } from "./init.js";

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
 * The call's init with a new key in `keyHeader` (the operation takes one) unless the caller set one, and an object
 * body encoded as `form` (the operation's form media type, forms.ts).
 */
export function write(init: Init, keyHeader: string | undefined, form: string | undefined): Init {
  if (keyHeader && !setsHeader(init, keyHeader)) init = withHeader(init, keyHeader, newKey());
  return form ? withForm(form, init) : init;
}
