// Signed links to the mock's own files (a report's `download_url`, decision SH13). Report.yaml describes a signed
// link that expires; the mock's carries `expires` (epoch seconds) and `signature`, an HMAC-SHA256 of the path and
// the expiry, base64url. The files stage checks both before it looks anything up, so a request without credentials
// never loads or creates a workspace (issue 29: a flood of made-up links filled --max-workspaces).
//
// The key is derived from the mock's JWT secret, so links survive a restart with --state exactly when tokens do.
// A synchronous HMAC (digest.ts, not WebCrypto's async one): a link is made inside a lifecycle step, which is synchronous.
import { equalBytes, hmacSha256, toBase64Url } from "../util/digest.js";

export const LINK_LIFETIME_MS = 3_600_000;

export class FileLinks {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = hmacSha256("avt-mock file links", secret);
  }

  /** When a link made at `now` expires, in epoch seconds (what `download_expires_at` says, to the second). */
  static expiry(now: number): number {
    return Math.floor((now + LINK_LIFETIME_MS) / 1000);
  }

  /** `path` with its expiry and signature as query parameters. */
  sign(path: string, expires: number): string {
    return `${path}?expires=${expires}&signature=${this.mac(path, expires)}`;
  }

  /** Is `signature` the one of `path` and `expires`, and is `expires` still ahead of `now`? Constant time. */
  valid(path: string, expires: string | null, signature: string | null, now: number): boolean {
    if (!expires || !/^\d{1,12}$/.test(expires) || !signature || signature.length !== 43) return false;
    const encoder = new TextEncoder();
    return equalBytes(encoder.encode(this.mac(path, Number(expires))), encoder.encode(signature)) && Number(expires) * 1000 > now;
  }

  private mac(path: string, expires: number): string {
    return toBase64Url(hmacSha256(this.key, `${path}\n${expires}`));
  }
}
