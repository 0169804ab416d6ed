// Injected into the simulation's browser bundle (browser-bundle.ts): the `buffer` package's Buffer wherever the
// core names the global Buffer, which browsers lack. That package knows no "base64url" (Node's encoding for
// cursors, signatures and ids): it is taken here as base64 without padding, with - and _ for + and /.
import { Buffer } from "buffer";

const toText = Buffer.prototype.toString;
Buffer.prototype.toString = function (this: Buffer, encoding?: string, start?: number, end?: number): string {
  if (encoding !== "base64url") return toText.call(this, encoding as never, start, end);
  return toText.call(this, "base64", start, end).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
const from = Buffer.from as (value: unknown, encoding?: unknown, length?: number) => Buffer;
Buffer.from = function (value: unknown, encoding?: unknown, length?: number): Buffer {
  // base64-js reads - and _ as + and / already: only the encoding's name is new to it.
  return from.call(Buffer, value, encoding === "base64url" ? "base64" : encoding, length);
} as typeof Buffer.from;
const byteLength = Buffer.byteLength;
Buffer.byteLength = ((value: string, encoding?: string) => byteLength(value, (encoding === "base64url" ? "base64" : encoding) as never)) as typeof Buffer.byteLength;

export { Buffer };
