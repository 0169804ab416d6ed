// The latency setting (MOCK_LATENCY_MS, --latency, option `latencyMs`): its type, its parsing from text and its
// check. Below the settings table, the options and the services; the stage that waits is stages/latency.ts.
/** A fixed delay or an inclusive range, ms. */
export type Latency = number | readonly [number, number];

/** Longest delay accepted, ms: a minute (the client gives up after 30 s without headers). */
export const MAX_LATENCY_MS = 60_000;

export class LatencyError extends Error {}

/**
 * Reads `300` or `100-800` (ms, whole numbers, at most MAX_LATENCY_MS); `name` (the variable or flag) is named in
 * the error. Empty means none.
 */
export function parseLatency(text: string, name: string): Latency | null {
  const t = text.trim();
  if (t === "") return null;
  const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(t);
  const bad = (why: string) => new LatencyError(`${name} must be a delay in milliseconds such as 300, or a range such as 100-800${why}; got "${text}".`);
  if (!m) throw bad("");
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (hi < lo) throw bad(" (the smaller number first)");
  if (hi > MAX_LATENCY_MS) throw bad(` of at most ${MAX_LATENCY_MS}`);
  return m[2] === undefined ? lo : [lo, hi];
}

/** Checks a `latencyMs` option: whole milliseconds from 0 to MAX_LATENCY_MS, a range smaller first. */
export function checkLatency(l: Latency): [number, number] {
  const [lo, hi] = typeof l === "number" ? [l, l] : l;
  const ok = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_LATENCY_MS;
  if (!ok(lo) || !ok(hi) || hi < lo) throw new LatencyError(`latencyMs must be whole milliseconds from 0 to ${MAX_LATENCY_MS} (a range smaller first), not ${JSON.stringify(l)}`);
  return [lo, hi];
}
