// A timer as a promise, cancelled by an AbortSignal: node:timers/promises' `setTimeout(ms, undefined, { signal })`
// with the timers every runtime has, so the core (event streams, the latency stage) runs in a browser too.

/** Resolves after `ms`; rejects with the signal's reason (and clears the timer) when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Lets the process exit with this timer pending (Node's `unref`); a no-op where timers are plain numbers (a
 * browser), which have no process to keep alive.
 */
export function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
