// Shared pieces of `npm run bench`: statistics, child processes (spawned in their own process group and ended by
// that id, never by name), free ports, and waiting for an HTTP answer.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import path from "node:path";
import { ROOT } from "../lib/paths.js";

export const BIN = (name: string) => path.join(ROOT, "node_modules/.bin", name);
export const TSX = BIN("tsx");
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median of per-round ratios a[i] / b[i]: each ratio is taken side by side, in the same round. */
export function medianRatio(a: number[], b: number[]): number {
  return median(a.map((x, i) => x / b[i]!));
}

/** `xs` in a new random order (Fisher–Yates). */
export function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Runs `order`'s entries round-robin for `rounds` rounds (a, b, c, a, b, c, …), collecting each one's results;
 * with `shuffle`, in a new random order each round, so that no entry always runs after the same one (in one process,
 * what one leaves behind, garbage and timers, slows the next).
 */
export async function alternate<K extends string, T>(
  order: K[],
  rounds: number,
  run: (key: K, round: number) => Promise<T>,
  shuffle = false,
): Promise<Record<K, T[]>> {
  const out = Object.fromEntries(order.map((k) => [k, [] as T[]])) as Record<K, T[]>;
  for (let r = 0; r < rounds; r++) for (const k of shuffle ? shuffled(order) : order) out[k].push(await run(k, r));
  return out;
}

export { freePort } from "../lib/engines.js";

const children = new Set<ChildProcess>();

/** Spawns a child in its own process group (so it and its own children can be ended together by its id). */
export function spawnGroup(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true, ...opts });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Ends a child started by `spawnGroup`: SIGTERM to its process group, SIGKILL after `graceMs`. */
export async function stopGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      /* already gone */
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** On an abnormal exit of the bench, the children it started go too (by their process-group ids). */
export function stopAllOnExit(): void {
  const killAll = () => {
    for (const c of children) {
      try {
        if (c.pid !== undefined) process.kill(-c.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  };
  process.once("exit", killAll);
  for (const s of ["SIGINT", "SIGTERM"] as const) {
    process.once(s, () => {
      killAll();
      process.exit(130);
    });
  }
}

/** Resolves with the first stdout line of `child` that parses as JSON (children report their URL that way). */
export function firstJsonLine<T>(child: ChildProcess, what: string, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms\n${err}`)), timeoutMs);
    child.stderr?.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.stdout?.on("data", (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line.startsWith("{")) continue;
        clearTimeout(timer);
        try {
          resolve(JSON.parse(line) as T);
        } catch (e) {
          reject(e);
        }
        return;
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it was ready\n${err}`));
    });
  });
}

/**
 * Polls `url` every `everyMs` until it answers `status`; resolves with performance.now() at that answer. Gives up
 * after `timeoutMs`, or as soon as `gone()` says the server's process has exited.
 */
export async function waitForStatus(
  url: string,
  headers: Record<string, string>,
  o: { status?: number; timeoutMs?: number; everyMs?: number; gone?: () => boolean } = {},
): Promise<number> {
  const { status = 200, timeoutMs = 60_000, everyMs = 20, gone = () => false } = o;
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (gone()) throw new Error(`the server for ${url} exited before answering`);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === status) return performance.now();
    } catch {
      /* not listening yet */
    }
    if (performance.now() > end) throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs a command to completion; resolves with its wall time (ms) and output, rejects on a non-zero exit. */
export function timed(cmd: string, args: string[], opts: SpawnOptions = {}): Promise<{ ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], ...opts });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve({ ms, stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(" ")} exited ${code}\n${(stdout + stderr).slice(-3000)}`));
    });
  });
}

/** Quiet npm: no update notices, funding or audit chatter, so only the script's own time counts. */
export const NPM_ENV = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", NO_COLOR: "1" };
