// One process per state database (decision DB10). Two gateways on one file each saw only their own writes and one
// overwrote what the other had acknowledged (issue 29), so the second is refused at start, naming the file and the
// process that holds it.
//
// Two locks, both files beside the database holding the holder's pid, host and name: `FILE.lock` by name (taken
// first, before the file exists or is migrated) and `.state-<dev>-<ino>.lock` by identity, so a hard link to a
// database in use meets the first gateway's lock and is refused naming it (issue 47). Each is taken atomically (see
// `take`): made whole in a file of our own and link(2)ed to its name, a stale one (its holder dead after kill -9)
// claimed by one process alone before it is removed. Written by hand, not with SQLite's exclusive locking mode:
// that mode would also shut out every reader of the database (an operator's `sqlite3 FILE`, the tests reading rows
// while the mock runs), and a SQLite lock cannot say who holds it. Pid reuse can make a stale lock look held; the
// message then says which file to remove. A hard link in another folder has its identity lock there: not seen.
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
  /** Also locks the database file by its device and inode (a hard link is the same database); call once it exists. */
  byIdentity(): void;
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
  const me: Holder = { pid: process.pid, host: os.hostname(), file: abs };
  if (held.has(abs)) throw refused(file, lockFile, me);
  take(file, lockFile, me);
  held.add(abs);
  let identity: string | null = null;
  return {
    file: abs,
    byIdentity() {
      if (identity) return;
      const st = fs.lstatSync(abs);
      const idFile = identityLockFile(abs, st);
      try {
        take(file, idFile, { ...me, dev: st.dev, ino: st.ino });
      } catch (e) {
        this.release();
        throw e;
      }
      identity = idFile;
    },
    release() {
      if (!held.delete(abs)) return;
      for (const f of [identity, lockFile]) if (f) releaseFile(f, me.pid);
    },
  };
}

/** The identity lock of a database file: beside it, named by its device and inode, so every name of it meets it. */
export function identityLockFile(file: string, st: { dev: number; ino: number } = fs.lstatSync(file)): string {
  return path.join(path.dirname(path.resolve(file)), `.state-${st.dev}-${st.ino}.lock`);
}

interface Holder {
  pid: number;
  host: string;
  file?: string;
  dev?: number;
  ino?: number;
}

/**
 * Takes `lockFile` for `me`, or throws naming its live holder. Atomic at each step, with no moment where the lock
 * exists half written or two processes both remove a stale one (issue 47):
 * - the lock appears whole: written to a file of our own first, then link(2)ed to its name (EEXIST if taken);
 * - a stale lock (dead holder, or unreadable) is claimed by link(2)ing it to `LOCK.stale-<its inode>`: of the
 *   processes that judged that very file stale, one link succeeds; only the claimant unlinks the lock (after checking
 *   the claim holds that inode: the lock may have been replaced since it was read), and then everyone races on link
 *   again. An inode cannot be reused while the claim names it, so a claim never unlinks a newer lock.
 */
function take(file: string, lockFile: string, me: Holder): void {
  const mine = `${lockFile}.${process.pid}-${Math.random().toString(36).slice(2)}.new`;
  fs.writeFileSync(mine, JSON.stringify(me), { flag: "wx", mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        fs.linkSync(mine, lockFile);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new StateFileError(`${file}: cannot take the lock ${lockFile} (${(e as Error).message})`);
      }
      const cur = readLock(lockFile);
      if (!cur) continue; // released meanwhile
      if (cur.holder && alive(cur.holder)) throw refused(file, lockFile, cur.holder);
      if (!claimStale(lockFile, cur.ino)) pause(5);
    }
  } finally {
    fs.rmSync(mine, { force: true });
  }
  throw new StateFileError(`${file}: cannot take the lock ${lockFile}: another process keeps taking it`);
}

/** Removes the stale lock of inode `ino` if this process wins its claim; false when another process holds the claim. */
function claimStale(lockFile: string, ino: number): boolean {
  const claim = `${lockFile}.stale-${ino}`;
  try {
    fs.linkSync(lockFile, claim);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true;
    if (code !== "EEXIST") throw e;
    // Another claimant: done with it if the lock is no longer that inode (a leftover claim is removed), else wait.
    if (inodeOf(lockFile) !== ino) fs.rmSync(claim, { force: true });
    return false;
  }
  try {
    if (inodeOf(claim) === ino) fs.rmSync(lockFile, { force: true }); // still that stale file: only we may remove it
  } finally {
    fs.rmSync(claim, { force: true });
  }
  return true;
}

function inodeOf(f: string): number | null {
  try {
    return fs.lstatSync(f).ino;
  } catch {
    return null;
  }
}

/** The lock's holder and inode, read through one descriptor (so they belong together); null when it is gone. */
function readLock(lockFile: string): { holder: Holder | null; ino: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(lockFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const ino = fs.fstatSync(fd).ino;
    try {
      const h = JSON.parse(fs.readFileSync(fd, "utf8"));
      return { holder: typeof h?.pid === "number" && typeof h?.host === "string" ? h : null, ino };
    } catch {
      return { holder: null, ino };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Removed only while it is still ours (a holder taking over a lock it judged stale writes its own pid). */
function releaseFile(lockFile: string, pid: number): void {
  if (readLock(lockFile)?.holder?.pid === pid) fs.rmSync(lockFile, { force: true });
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Is the holder alive? One on another host (a shared folder) is taken as alive: it cannot be checked from here. */
function alive(h: Holder): boolean {
  if (h.host !== os.hostname()) return true;
  if (h.pid === process.pid) return true;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function refused(file: string, lockFile: string, h: Holder): StateFileError {
  const as = h.file && h.file !== path.resolve(file) ? ` as ${h.file} (the same file: device ${h.dev}, inode ${h.ino})` : "";
  return new StateFileError(
    `${file}: the state database is in use by process ${h.pid} on ${h.host}${as} (lock ${lockFile}); one gateway per state file. Stop that process, or remove the lock file if it is not a mock.`,
  );
}
