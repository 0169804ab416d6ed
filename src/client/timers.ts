// The clock the client waits on. Retries, timeouts and stream reconnects all go through one `Timers` object,
// so tests inject a fake one and never sleep for real.

export interface Timers {
  /** Milliseconds since some fixed point; only differences are used. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: Date.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The reason a signal was aborted with, as something throwable. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Waits `ms`; rejects with the signal's reason at once if `signal` aborts first (or already has). */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      timers.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop);
  });
}
