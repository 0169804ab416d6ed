// Open event streams and WebSocket sessions, counted per workspace and per client address (issue 22: 20,000 open
// streams made /health fail), and the idle time-out that ends a stream showing nothing (a resting analysis).
// Caps from limits.ts: `streamsPerWorkspace` (403 `limit_reached`), `streamsPerAddress` (503 `capacity_exceeded`).
import { CapReached, type Limits } from "./limits.js";
import { unref } from "../util/sleep.js";

export class StreamSlots {
  private readonly byWorkspace = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: Pick<Limits, "streamsPerWorkspace" | "streamsPerAddress">) {}

  /** Streams open now, all together (for tests and the bench). */
  get open(): number {
    let n = 0;
    for (const v of this.byWorkspace.values()) n += v;
    return n;
  }

  /**
   * Takes a slot for a stream of `workspaceId` from `address`, or throws the cap's answer; the returned function
   * gives it back (once, however often it is called).
   */
  take(workspaceId: string, address: string): () => void {
    if ((this.byWorkspace.get(workspaceId) ?? 0) >= this.limits.streamsPerWorkspace) {
      throw new CapReached("limit_reached", `This workspace has ${this.limits.streamsPerWorkspace} event streams and WebSocket sessions open, the most the mock keeps (--max-streams-per-workspace): close one first.`);
    }
    if ((this.byAddress.get(address) ?? 0) >= this.limits.streamsPerAddress) {
      throw new CapReached("capacity_exceeded", `Your address has ${this.limits.streamsPerAddress} event streams and WebSocket sessions open, the most the mock keeps (--max-streams-per-address): close one first.`);
    }
    bump(this.byWorkspace, workspaceId, 1);
    bump(this.byAddress, address, 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      bump(this.byWorkspace, workspaceId, -1);
      bump(this.byAddress, address, -1);
    };
  }
}

function bump(m: Map<string, number>, k: string, by: number): void {
  const n = (m.get(k) ?? 0) + by;
  if (n > 0) m.set(k, n);
  else m.delete(k);
}

/**
 * Calls `onIdle` once `ms` pass without `touch()`: the stream then ends. One unref'd timer, moved forward lazily
 * (re-armed only when it fires early), so a busy stream costs no timer churn.
 */
export function idleTimer(ms: number, onIdle: () => void): { touch(): void; stop(): void } {
  let last = performance.now();
  let timer: NodeJS.Timeout | null = null;
  const arm = (wait: number) => {
    timer = setTimeout(() => {
      const left = last + ms - performance.now();
      if (left > 0) return arm(left);
      timer = null;
      onIdle();
    }, wait);
    unref(timer);
  };
  arm(ms);
  return {
    touch: () => void (last = performance.now()),
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
