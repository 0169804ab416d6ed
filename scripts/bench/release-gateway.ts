// The last release's gateway, started beside today's so the bench can say what a request costs now against what it
// cost when the contract was last released, in one run, on one machine state (decision RM29). Across runs the cost
// of node:http itself moved 2× on this host (the ceiling answered in 25 µs of CPU a request on 2026-11-24 and in
// 51 µs on 2026-11-27, while Prism's cost stayed 1.5-1.7 ms), so a ratio to Prism from another run says more of the
// host than of the code; a ratio to the released code from the same rounds does not.
//
// The release is the last commit that changed generated/released/openapi.yaml (what `npm run release` writes and
// `check:breaking` compares with). Its tree comes out of git (`git archive`) into a scratch folder that borrows this
// checkout's node_modules (a symlink), and its own scripts/bench/servers.ts starts its gateway.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { ROOT } from "../lib/paths.js";

/** Where the released contract lives, relative to the repository (RELEASED_DIR of scripts/lib/diff/diff.ts). */
export const RELEASED_FILE = "generated/released/openapi.yaml";

export interface Release {
  /** The commit that last wrote the released contract. */
  commit: string;
  /** Its info.version. */
  version: string;
}

function git(args: string[], cwd: string): Buffer {
  return execFileSync("git", args, { cwd, maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
}

/** The last release in `root`'s history, or the reason there is none to measure (no git, a shallow clone, …). */
export function lastRelease(root = ROOT): Release | { missing: string } {
  let commit: string;
  try {
    commit = git(["log", "-1", "--format=%H", "--", RELEASED_FILE], root).toString().trim();
  } catch (e) {
    return { missing: `git could not read the history: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!commit) return { missing: `no commit in this checkout's history writes ${RELEASED_FILE}` };
  const doc = parse(git(["show", `${commit}:${RELEASED_FILE}`], root).toString()) as { info?: { version?: string } };
  return { commit, version: String(doc.info?.version ?? "unknown") };
}

/**
 * Writes `release`'s tree into `dir` (which must be empty or absent) with `root`'s node_modules linked in, ready for
 * `tsx scripts/bench/servers.ts gateway` run from `dir`.
 */
export function extractRelease(release: Release, dir: string, root = ROOT): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-x", "-C", dir], { input: git(["archive", "--format=tar", release.commit], root), maxBuffer: 1 << 30 });
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
}
