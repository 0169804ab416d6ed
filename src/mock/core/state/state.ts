// src/mock/core/state/state.ts — state the mock keeps between requests, resettable and persistable.
export interface MockState {
  /** Stable name, the key of this part in the state file. */
  readonly name: string;
  /** Forgets everything (POST /__mock/reset): back to the seeded start. */
  reset(): void;
  /** A JSON-serialisable copy of the state. */
  snapshot(): unknown;
  /** Replaces the state with a snapshot made by `snapshot()` (throws with a clear message on a malformed one). */
  restore(data: unknown): void;
}
