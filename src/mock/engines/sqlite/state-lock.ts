// One process per state database (decision DB10). Two gateways on one file each saw only their own writes and one
// overwrote what the other had acknowledged (issue 29), so the second is refused at start, naming the file and the
// process that holds it.
//
// The lock is a file beside the database, `FILE.lock`, created exclusively (O_EXCL: of two processes starting at
// once, one wins) and holding the holder's pid and host. Written by hand, not with SQLite's exclusive locking mode:
// that mode would also shut out every reader of the database (an operator's `sqlite3 FILE`, the tests reading rows
// while the mock runs), and a SQLite lock cannot say who holds it. A holder that died (kill -9) leaves the file: a
// lock whose pid is not alive on this host is stale and taken over. Pid reuse can make a stale lock look held; the
// message then says which file to remove.
//
// Before the lock, the folder is checked for writing: a read-only file system or file refuses the start here, with
// a message, rather than answering 500 to every write later (issue 29).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StateFileError } from "./state-file.js";

/** Files this process holds (a second gateway in the same process is refused too). */
const held = new Set<string>();

export interface StateLock {
  readonly file: string;
  release(): void;
}

/** Refuses `file` unless it and its folder can be written (access(2) sees read-only mounts and immutable files). */
export function checkWritable(file: string): void {
  const dir = path.dirname(path.resolve(file));
  for (const [what, target] of [["its folder", dir], ["the file", file]] as const) {
    if (what === "the file" && !fs.existsSync(target)) continue;
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === "EROFS" ? "a read-only file system" : code === "EPERM" ? "the file is immutable" : code === "EACCES" ? "permission denied" : code;
      throw new StateFileError(`${file}: the state database cannot be written (${what}: ${why}); the mock writes every change there before it answers`);
    }
  }
}

/** Takes the lock of the state database `file`, or throws a StateFileError naming the holder. */
export function lockState(file: string): StateLock {
  const abs = path.resolve(file);
  const lockFile = `${abs}.lock`;
  const me = { pid: process.pid, host: os.hostname() };
  if (held.has(abs)) throw refused(file, lockFile, me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockFile, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
      fs.writeSync(fd, JSON.stringify(me));
      fs.closeSync(fd);
      held.add(abs);
      return {
        file: abs,
        release() {
          if (!held.delete(abs)) return;
          // Removed only while it is still ours (a holder taking over a lock it judged stale writes its own pid).
          if (readHolder(lockFile)?.pid === me.pid) fs.rmSync(lockFile, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new StateFileError(`${file}: cannot take the lock ${lockFile} (${(e as Error).message})`);
    }
    const holder = readHolder(lockFile);
    if (holder && alive(holder)) throw refused(file, lockFile, holder);
    fs.rmSync(lockFile, { force: true }); // stale: its holder is gone (or the file is unreadable); try again
  }
  throw new StateFileError(`${file}: cannot take the lock ${lockFile}: another process keeps taking it`);
}

function readHolder(lockFile: string): { pid: number; host: string } | null {
  try {
    const h = JSON.parse(fs.readFileSync(lockFile, "utf8"));
    return typeof h?.pid === "number" && typeof h?.host === "string" ? h : null;
  } catch {
    return null;
  }
}

/** Is the holder alive? One on another host (a shared folder) is taken as alive: it cannot be checked from here. */
function alive(h: { pid: number; host: string }): boolean {
  if (h.host !== os.hostname()) return true;
  if (h.pid === process.pid) return true;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function refused(file: string, lockFile: string, h: { pid: number; host: string }): StateFileError {
  return new StateFileError(
    `${file}: the state database is in use by process ${h.pid} on ${h.host} (lock ${lockFile}); one gateway per state file. Stop that process, or remove the lock file if it is not a mock.`,
  );
}
