// Secrets (API keys, webhook secrets, refresh tokens) come from WebCrypto (src/mock/core/util/ids.ts):
// never Math.random, every character of the alphabet drawn, each as likely as another.
import { afterEach, describe, expect, it, vi } from "vitest";
import { randomBase62, randomChars } from "../../../../src/mock/core/util/ids.js";

afterEach(() => vi.restoreAllMocks());

describe("random ids and secrets", () => {
  it("come from globalThis.crypto.getRandomValues, never Math.random", () => {
    const random = vi.spyOn(Math, "random");
    const webcrypto = vi.spyOn(globalThis.crypto, "getRandomValues");
    const secrets = new Set(Array.from({ length: 1000 }, () => randomBase62(32)));
    expect(secrets.size).toBe(1000);
    expect(randomBase62(32)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(random).not.toHaveBeenCalled();
    expect(webcrypto).toHaveBeenCalled();
  });

  it("draw every character of the alphabet about equally (no modulo bias: 62 does not divide 256)", () => {
    const counts = new Map<string, number>();
    for (const c of randomChars("abc", 30_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(["a", "b", "c"]);
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600); // > 8 standard deviations
  });
});
