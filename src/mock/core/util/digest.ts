// The hashes the core takes (idempotency fingerprints, key ids, signed file links, webhook signatures), with no
// node:crypto so the same code runs in a browser (createSimulation through MSW's service worker). They are computed
// synchronously in the middle of a request, where WebCrypto's `subtle` (always async) would turn sync stages into
// promises on every request; @noble/hashes (audited, pure JavaScript, no dependencies) gives the same SHA-256 and
// HMAC synchronously. Random values come from WebCrypto (`globalThis.crypto`, in Node 20 and every browser).
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();
type Data = string | Uint8Array;
/**
 * The realm's own Uint8Array over the same memory. @noble/hashes takes only an `instanceof Uint8Array` of the realm
 * it runs in, and under a DOM test environment (vitest's jsdom) that realm's Uint8Array is the DOM's: Node's Buffer,
 * or a view made in Node's realm, is refused. A view costs no copy.
 */
const bytes = (d: Data): Uint8Array => (typeof d === "string" ? encoder.encode(d) : d.constructor === Uint8Array ? d : new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX[b[i]!];
  return s;
}

export function toBase64Url(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of a base64url text (padding and standard base64's `+` and `/` taken too); throws on any other character. */
export function fromBase64Url(s: string): Uint8Array {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "="));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

/** A JSON value as the base64url of its UTF-8 text (an opaque token: a list's cursor), and back. */
export const toBase64UrlJson = (value: unknown): string => toBase64Url(encoder.encode(JSON.stringify(value)));
export const fromBase64UrlJson = (token: string): unknown => JSON.parse(new TextDecoder().decode(fromBase64Url(token)));

/** SHA-256 of the parts, one after another (as node:crypto's `update(a).update(b)`). */
export function sha256Of(...parts: Data[]): Uint8Array {
  const h = sha256.create();
  for (const p of parts) h.update(bytes(p));
  return h.digest();
}

/** SHA-256 fed piece by piece as the pieces arrive (a streamed upload's body, never held whole). */
export function sha256Stream(): { update(d: Data): void; digest(): Uint8Array } {
  const h = sha256.create();
  return { update: (d) => void h.update(bytes(d)), digest: () => h.digest() };
}

/** HMAC-SHA256 of the parts under `key`. */
export function hmacSha256(key: Data, ...parts: Data[]): Uint8Array {
  const h = hmac.create(sha256, bytes(key));
  for (const p of parts) h.update(bytes(p));
  return h.digest();
}

/** Equal bytes, compared in time that does not depend on where they differ. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** A uniform integer in [min, max) from WebCrypto (as node:crypto's randomInt, without its modulo bias). */
export function randomInt(min: number, max: number): number {
  const range = max - min;
  const limit = Math.floor(0x1_0000_0000 / range) * range;
  const one = new Uint32Array(1);
  for (;;) {
    globalThis.crypto.getRandomValues(one);
    if (one[0]! < limit) return min + (one[0]! % range);
  }
}

export const randomUUID = (): string => globalThis.crypto.randomUUID();
