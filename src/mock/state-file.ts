// The state file (`--state FILE`, MOCK_STATE_FILE): what the mock keeps between requests, kept across restarts.
//
//   { "version": 1, "saved_at": "…", "states": { "<part name>": <that part's snapshot()>, … } }
//
// Loaded once at start: a file that cannot be read, is not JSON, or holds a part its owner cannot restore stops the
// start with the file, line and column, and the file is left as it was (never overwritten by an empty state).
// Parts in the file that no registered state claims (one this gateway runs without) are written back unchanged.
// Written after changes (debounced: one write per burst) and on close, atomically: to a temporary file in the same
// folder, flushed to disk, then renamed over the old one, so a crash mid-write leaves the previous file whole.
// Mode 0600: it holds the secrets of keys and webhooks created in the mock.
import fs from "node:fs";
import path from "node:path";
import { isoSeconds } from "./ids.js";
import { parseJsonSource } from "./json-file.js";
import { SnapshotError } from "./snapshot.js";
import type { StateRegistry } from "./state-registry.js";

export const STATE_FILE_VERSION = 1;

export class StateFileError extends Error {}

export interface StateFileOptions {
  /** Wait after a change before writing, ms (more changes meanwhile join the same write). */
  writeDelayMs?: number;
  now?: () => number;
  /** Told of a failed write (the mock keeps running; the next change tries again). */
  onError?: (e: Error) => void;
}

export class StateFile {
  /** Parts of the file no registered state claims, kept as they were. */
  private others: Record<string, unknown> = {};
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly file: string,
    private readonly registry: StateRegistry,
    private readonly opts: StateFileOptions = {},
  ) {}

  /** Restores every registered part from the file; `new` when there is no file yet (it is written on the first change). */
  load(): "loaded" | "new" {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === "ENOENT") {
        if (!fs.existsSync(path.dirname(path.resolve(this.file)))) throw new StateFileError(`${this.file}: its folder does not exist`);
        return "new";
      }
      throw new StateFileError(`${this.file}: cannot read the state file (${err.message})`);
    }
    const src = parseJsonSource(text, this.file, (m) => new StateFileError(m));
    const fail = (where: Array<string | number>, msg: string): never => {
      throw new StateFileError(`${src.at(where)}: ${where.length ? where.join(".") + ": " : ""}${msg}`);
    };
    const doc = src.data as { version?: unknown; states?: unknown } | null;
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) fail([], `expected {"version": ${STATE_FILE_VERSION}, "states": {…}}`);
    if (doc!.version !== STATE_FILE_VERSION) fail(["version"], `must be ${STATE_FILE_VERSION} (this mock's state file format)`);
    const states = doc!.states;
    if (!states || typeof states !== "object" || Array.isArray(states)) fail(["states"], "must be an object with one entry per part of the state");
    // Every part is checked before any is changed, so a bad part leaves the running state untouched as well.
    const parts = this.registry.all;
    const others: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(states as Record<string, unknown>)) if (!parts.some((p) => p.name === name)) others[name] = value;
    const before = parts.map((p) => p.snapshot());
    parts.forEach((part) => {
      if (!Object.hasOwn(states as object, part.name)) return;
      try {
        part.restore((states as Record<string, unknown>)[part.name]);
      } catch (e) {
        parts.forEach((p, i) => p.restore(before[i]));
        const inner = e instanceof SnapshotError ? e.path : [];
        fail(["states", part.name, ...inner], e instanceof SnapshotError ? e.reason : (e as Error).message);
      }
    });
    this.others = others;
    return "loaded";
  }

  /** Called on every change: writes once the burst of changes is over. */
  schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.save();
    }, this.opts.writeDelayMs ?? 200);
    this.timer.unref();
  }

  /** Writes now (after any write under way). Failures go to `onError`, and reject. */
  save(): Promise<void> {
    const next = this.writing.then(() => this.write());
    this.writing = next.catch((e: Error) => this.opts.onError?.(e));
    return next;
  }

  /** Writes the state one last time (the gateway is closing); later changes are not written. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.closed = true;
    await this.save();
  }

  private write(): void {
    const states: Record<string, unknown> = { ...this.others };
    for (const part of this.registry.all) states[part.name] = part.snapshot();
    const text = JSON.stringify({ version: STATE_FILE_VERSION, saved_at: isoSeconds((this.opts.now ?? Date.now)()), states }, null, 2) + "\n";
    const tmp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.${process.pid}.tmp`);
    const fd = fs.openSync(tmp, "w", 0o600);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
  }
}
