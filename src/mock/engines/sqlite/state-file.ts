// The JSON state file of earlier versions (`--state FILE` before the state became a SQLite database,
// state-db.ts): read once, when such a file is given, and migrated into a database (decision DB4).
//
//   { "version": 1, "saved_at": "…", "states": { "<part name>": <that part's snapshot()>, … } }
//
// A file that cannot be read, is not JSON, or holds a part its owner cannot restore stops the start with the
// file, line and column, and the file is left as it was. Parts in the file that no registered state claims (one
// this gateway runs without) are kept as they are (`others`).
import fs from "node:fs";
import path from "node:path";
import { parseJsonSource } from "../../core/state/json-file.js";
import { SnapshotError } from "../../core/state/snapshot.js";
import type { StateRegistry } from "../../core/state/state-registry.js";
import { jsonDepth, MAX_STORED_DEPTH } from "../../core/store/persist.js";

export const STATE_FILE_VERSION = 1;

/** A stored value's depth and the file's own levels around it (states.store.workspaces.<id>.records.<i>.log…). */
const MAX_FILE_DEPTH = MAX_STORED_DEPTH + 16;

export class StateFileError extends Error {}

export class StateFile {
  /** Parts of the file no registered state claims, kept as they were. */
  others: Record<string, unknown> = {};

  constructor(
    readonly file: string,
    private readonly registry: StateRegistry,
  ) {}

  /** Restores every registered part from the file; `new` when there is no file. */
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
    // Checked before parsing: a value nested thousands deep overflows the stack of whatever walks it later.
    if (jsonDepth(text) > MAX_FILE_DEPTH) throw new StateFileError(`${this.file}: nested deeper than ${MAX_FILE_DEPTH} levels, which no state this mock wrote is`);
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
}
