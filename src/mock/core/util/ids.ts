// Small value makers shared by the mock's state: random secrets and ids, and the contract's date-time form.
// Randomness from WebCrypto (`globalThis.crypto.getRandomValues`), never Math.random (issue 29: ids and file links
// were guessable) nor node:crypto, so the same code runs in a browser (the in-process simulation).

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Where the random part of the ids the mock mints, and of the secrets it makes, comes from: a number in [0, 1).
 * Unset (the server, a simulation without `seed`) the ids draw from Math.random and the secrets from WebCrypto; a
 * simulation given `seed` draws both from one seeded generator, so the same seed mints the same ids.
 */
export type Random = () => number;

/**
 * `n` characters of `alphabet` (at most 256 of them), each uniformly drawn from a cryptographic source: bytes at or
 * above the largest multiple of the alphabet's length are drawn again, so no character is likelier than another.
 */
export function randomChars(alphabet: string, n: number, random?: Random): string {
  if (random) {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
    return s;
  }
  const limit = 256 - (256 % alphabet.length);
  let s = "";
  while (s.length < n) {
    for (const b of globalThis.crypto.getRandomValues(new Uint8Array(n - s.length + 8))) {
      if (b < limit && s.length < n) s += alphabet[b % alphabet.length];
    }
  }
  return s;
}

/**
 * `n` random letters and digits (secrets: API keys, webhook secrets, refresh tokens): from a cryptographic source,
 * or from `random` (a seeded simulation's).
 */
export function randomBase62(n: number, random?: Random): string {
  return randomChars(BASE62, n, random);
}

/** Epoch ms as the contract writes a date-time: UTC, whole seconds (`2026-11-21T12:00:30Z`). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
