// Small value makers shared by the mock's state: random secrets and ids, and the contract's date-time form.
// Randomness from WebCrypto (`globalThis.crypto.getRandomValues`), never Math.random (issue 29: ids and file links
// were guessable) nor node:crypto, so the same code runs in a browser (the in-process simulation).

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Where the random part of the ids the mock mints, and of the secrets it makes, comes from: a number in [0, 1).
 * Unset (no `seed`) ids and secrets draw from WebCrypto; with a seed, each workspace's
 * from its own seeded stream (RandomStreams), so the same seed mints the same ids.
 */
export type Random = () => number;

/**
 * One seeded stream per scope (a workspace's id): what a workspace mints depends on the seed, the workspace and
 * what that workspace did before, never on what other workspaces did first (nor on the order they were first used).
 */
export interface RandomStreams {
  of(scope: string): Random;
}

/**
 * A small seeded PRNG (FNV-1a hash of the seed, then mulberry32): hand-written because the content must be a pure
 * function of the analysis id in any runtime (browser too), and these ten lines are all it needs.
 */
export function seeded(seed: string): Random {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The streams of one seed (`createSimulation({ seed })`, `avt-mock --seed`); `restart()` takes each back to its start. */
export class SeededStreams implements RandomStreams {
  private readonly streams = new Map<string, Random>();
  constructor(readonly seed: string | number) {}

  of(scope: string): Random {
    let r = this.streams.get(scope);
    if (!r) this.streams.set(scope, (r = seeded(`ids:${this.seed}:${scope}`)));
    return r;
  }

  restart(): void {
    this.streams.clear();
  }
}

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
