// What the proxy keeps of a body while it streams past: the first `limit` bytes when the body is to be judged
// (JSON, forms, event streams, errors), or only its size when nothing of it is read (raw uploads, media). The
// bytes themselves go on unchanged; nothing beyond `limit` is ever held, so a 2 GiB upload costs a counter.

export type Keep = "copy" | "count";

export class BodyCopy {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes seen in all, kept or not. */
  size = 0;
  /** The whole body went past (not cut off by either side). */
  complete = false;

  constructor(
    readonly keep: Keep,
    readonly limit: number,
  ) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.keep !== "copy" || this.kept >= this.limit) return;
    const part = this.kept + chunk.length > this.limit ? chunk.subarray(0, this.limit - this.kept) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** More came than was kept: a copied body over its limit. */
  get overLimit(): boolean {
    return this.keep === "copy" && this.size > this.limit;
  }

  /**
   * The bytes for the checks: what was kept, or, for a body only counted, one stand-in byte when there was a
   * body at all (the checks then know there is one, and read nothing of it).
   */
  bytes(): Buffer {
    if (this.keep === "count") return Buffer.alloc(this.size > 0 ? 1 : 0);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}
