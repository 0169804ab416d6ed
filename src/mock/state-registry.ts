// Every part of the state the mock keeps between requests (state.ts), in one list: `POST /__mock/reset` resets
// them all, the state file (state-file.ts) saves and loads them all. A part joins with one line,
// `services.states.register(part)`, and says `services.states.changed()` when it changes by itself (a timer, a
// delivery); requests that change something are noticed without it (serve.ts).
import type { MockState } from "./state.js";

export class StateRegistry {
  private readonly parts = new Map<string, MockState>();
  private readonly listeners = new Set<() => void>();

  /** Adds a part; its `name` must be new (it is the part's key in the state file). */
  register(part: MockState): void {
    if (this.parts.has(part.name)) throw new Error(`a mock state named "${part.name}" is already registered`);
    this.parts.set(part.name, part);
  }

  get all(): readonly MockState[] {
    return [...this.parts.values()];
  }

  get(name: string): MockState | undefined {
    return this.parts.get(name);
  }

  /** Every part back to its seeded start. */
  reset(): void {
    for (const part of this.parts.values()) part.reset();
    this.changed();
  }

  /** Something changed: tells the listeners (the state file schedules a write). Cheap: call it freely. */
  changed(): void {
    for (const fn of this.listeners) fn();
  }

  onChange(fn: () => void): void {
    this.listeners.add(fn);
  }
}
