// Small value makers shared by the mock's state: random secrets and the contract's date-time form.
import { randomInt } from "./digest.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `n` random letters and digits from a cryptographic source (secrets: API keys, webhook secrets, refresh tokens). */
export function randomBase62(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += BASE62[randomInt(0, 62)];
  return s;
}

/** Epoch ms as the contract writes a date-time: UTC, whole seconds (`2026-11-21T12:00:30Z`). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
