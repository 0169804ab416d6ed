// The bench's last release (scripts/bench/release-gateway.ts, decision RM29): the last commit that wrote the released
// contract, with that contract's version, and its tree extracted beside this checkout's node_modules. Checked on a
// throwaway repository with a history of its own, not on this one's (a clone may have more or fewer releases).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractRelease, lastRelease, RELEASED_FILE } from "../../../scripts/bench/release-gateway.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "avt-release-"));
  dirs.push(d);
  return d;
}

/** A repository whose commits write `files` in turn; returns its folder and the commits' ids, oldest first. */
function history(commits: Array<Record<string, string>>): { root: string; ids: string[] } {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] }).toString().trim();
  git("init", "-q");
  const ids = commits.map((files, i) => {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    }
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", `commit ${i}`);
    return git("rev-parse", "HEAD");
  });
  fs.mkdirSync(path.join(root, "node_modules"));
  return { root, ids };
}

const released = (version: string) => `openapi: 3.1.0\ninfo:\n  title: t\n  version: ${version}\npaths: {}\n`;

describe("the bench's last release", () => {
  it("is the last commit that wrote the released contract, with its version, not a later commit", () => {
    const { root, ids } = history([
      { [RELEASED_FILE]: released("1.0.0"), "src/a.ts": "one" },
      { [RELEASED_FILE]: released("1.1.0"), "src/a.ts": "two" },
      { "src/a.ts": "three" },
    ]);
    expect(lastRelease(root)).toEqual({ commit: ids[1], version: "1.1.0" });
  });

  it("is missing, with the reason, where no commit wrote the released contract or there is no repository", () => {
    const { root } = history([{ "src/a.ts": "one" }]);
    expect(lastRelease(root)).toEqual({ missing: `no commit in this checkout's history writes ${RELEASED_FILE}` });
    const bare = tempDir();
    expect(lastRelease(bare)).toMatchObject({ missing: expect.stringMatching(/^git could not read the history: /) });
  });

  it("extracts the release's tree, not the newer one, with the checkout's node_modules linked in", () => {
    const { root } = history([
      { [RELEASED_FILE]: released("1.0.0"), "src/a.ts": "released" },
      { "src/a.ts": "newer", "src/b.ts": "added later" },
    ]);
    const release = lastRelease(root);
    if ("missing" in release) throw new Error(release.missing);
    const dir = path.join(tempDir(), "release");
    extractRelease(release, dir, root);
    expect(fs.readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("released");
    expect(fs.existsSync(path.join(dir, "src/b.ts"))).toBe(false);
    expect(fs.realpathSync(path.join(dir, "node_modules"))).toBe(fs.realpathSync(path.join(root, "node_modules")));
  });
});
