// Small value makers shared by the mock's state: random secrets and ids, and the contract's date-time form.
// Randomness from WebCrypto (`globalThis.crypto.getRandomValues`), never Math.random (issue 29: ids and file links
// were guessable) nor node:crypto, so the same code runs in a browser (the in-process simulation).

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * `n` characters of `alphabet` (at most 256 of them), each uniformly drawn from a cryptographic source: bytes at or
 * above the largest multiple of the alphabet's length are drawn again, so no character is likelier than another.
 */
export function randomChars(alphabet: string, n: number): string {
  const limit = 256 - (256 % alphabet.length);
  let s = "";
  while (s.length < n) {
    for (const b of globalThis.crypto.getRandomValues(new Uint8Array(n - s.length + 8))) {
      if (b < limit && s.length < n) s += alphabet[b % alphabet.length];
    }
  }
  return s;
}

/** `n` random letters and digits from a cryptographic source (secrets: API keys, webhook secrets, refresh tokens). */
export function randomBase62(n: number): string {
  return randomChars(BASE62, n);
}

/** Epoch ms as the contract writes a date-time: UTC, whole seconds (`2026-11-21T12:00:30Z`). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
