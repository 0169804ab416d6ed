// Request bodies: read with a byte limit, and the "lingering close" that follows a refused one.
import type http from "node:http";
import { BadRequest } from "../contract/validation.js";
import { sha256Stream } from "../util/digest.js";

/** Largest JSON, form or multipart body the gateway reads into memory: a larger one answers 400 (E2: no 413). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Largest raw upload (application/octet-stream), counted as it streams but never kept: the contract's 2 GiB. */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/** A body over its limit: answered with 400 and the connection closed, so the rest is never buffered. */
export class BodyTooLarge extends BadRequest {}

/**
 * How long a connection whose body was refused is still read (and the bytes dropped) before it is closed. Closing
 * at once, with the client's bytes unread, makes the kernel send a reset that clients report instead of the 400
 * (a "lingering close", as nginx and Apache do).
 */
const LINGER_MS = 1000;

export function hasBody(req: http.IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/** The size of each body read without keeping its bytes (a stream upload: `size_bytes` is what arrived). */
const RECEIVED = new WeakMap<Buffer, number>();

/** The SHA-256 of each body read without keeping its bytes, so an Idempotency-Key tells two stream uploads apart. */
const DIGESTS = new WeakMap<Buffer, Uint8Array>();

/** How many bytes the request body `b` had: its length, or what was counted for a body not kept. */
export function bytesReceived(b: Buffer): number {
  return RECEIVED.get(b) ?? b.length;
}

/** The SHA-256 of a body that was hashed as it streamed by instead of kept; undefined for a kept body. */
export function streamedDigest(b: Uint8Array): Uint8Array | undefined {
  return DIGESTS.get(b as Buffer);
}

/**
 * Reads a request body, keeping the bytes only when `keep` (bodies the gateway parses). A body over `limit` is
 * refused by its Content-Length before anything is read, or as soon as the bytes counted pass it; reading then
 * stops (the 400 closes the connection), so no more than `limit` bytes are ever held.
 */
export function readBody(req: http.IncomingMessage, keep: boolean, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new BodyTooLarge(`Request body is larger than the mock accepts (${limit % 1024 ** 2 === 0 ? `${limit / 1024 ** 2} MiB` : `${limit} bytes`}).`);
  if (Number(req.headers["content-length"]) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const hash = keep ? null : sha256Stream();
    let size = 0;
    const done = () => {
      req.off("data", onData).off("end", onEnd).off("error", reject);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        return reject(tooLarge());
      }
      if (keep) chunks.push(chunk);
      else hash!.update(chunk);
    };
    const onEnd = () => {
      done();
      if (keep) return resolve(Buffer.concat(chunks));
      const marker = Buffer.alloc(size > 0 ? 1 : 0);
      RECEIVED.set(marker, size);
      DIGESTS.set(marker, hash!.digest());
      resolve(marker);
    };
    req.on("data", onData).on("end", onEnd).on("error", reject);
  });
}

/**
 * Prepares the connection of `req`, whose body is still arriving, to close lingering once its answer is written:
 * our side ends, what still comes is read and dropped, and the socket is destroyed LINGER_MS later.
 */
export function lingerAfterAnswer(req: http.IncomingMessage): void {
  const socket = req.socket;
  // node:http calls destroySoon() once the answer is written.
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  req.on("error", () => {}).resume();
}
