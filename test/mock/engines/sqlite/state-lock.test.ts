// The state file's lock (decision DB10, issue 47): taken atomically, so of two processes racing over a stale lock
// exactly one wins, and keyed by the database file's identity, so a hard link to a file in use is refused.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createGateway, StateFileError } from "../../../../src/mock/index.js";
import { contract, startGateway } from "../../../helpers/mock.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mock-lock-"));
  dirs.push(d);
  return d;
}

/** A process that, for each line `FILE AT` on its stdin, tries the lock of FILE at time AT, prints `won` or `refused …`. */
function racer(dir: string): { child: ChildProcess; next: () => Promise<string> } {
  const script = path.join(dir, "racer.mts");
  fs.writeFileSync(
    script,
    `import readline from "node:readline";
import { lockState } from ${JSON.stringify(path.join(root, "src/mock/engines/sqlite/state-lock.ts"))};
const held = [];
console.log("ready " + process.pid);
for await (const line of readline.createInterface({ input: process.stdin })) {
  const [file, at] = line.split(" ");
  while (Date.now() < Number(at)); // both start at the same instant (a spin, not a timer: timers are late)
  try { held.push(lockState(file)); console.log("won"); } catch (e) { console.log("refused " + e.message); }
}
`,
  );
  const child = spawn(path.join(root, "node_modules/.bin/tsx"), [script], { stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (l) => (waiting.length ? waiting.shift()!(l) : lines.push(l)));
  return { child, next: () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((r) => waiting.push(r))) };
}

describe("the state file's lock", () => {
  it("two processes racing over a stale lock (dead pid): exactly one wins, 20 trials out of 20", async () => {
    const dir = tempDir();
    const dead = spawnSync("true").pid!; // exited: its pid is not alive
    const [a, b] = [racer(dir), racer(dir)];
    try {
      // tsx runs the script in a child of its own: each racer says its pid.
      const pids = [await a.next(), await b.next()].map((l) => Number(/^ready (\d+)$/.exec(l)?.[1]));
      const outcomes: string[] = [];
      for (let trial = 0; trial < 20; trial++) {
        const file = path.join(dir, `state-${trial}.db`);
        fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead, host: os.hostname() }));
        const at = Date.now() + 150;
        a.child.stdin!.write(`${file} ${at}\n`);
        b.child.stdin!.write(`${file} ${at}\n`);
        const got = [await a.next(), await b.next()];
        outcomes.push(got.map((g) => g.split(" ")[0]).sort().join("+"));
        const loser = got.find((g) => g.startsWith("refused"));
        if (loser) expect(loser).toContain(`process ${got[0] === "won" ? pids[0] : pids[1]}`);
      }
      expect(outcomes).toEqual(Array(20).fill("refused+won"));
    } finally {
      a.child.kill();
      b.child.kill();
    }
  }, 60_000);

  it("a hard link to a state file in use is refused, naming the first gateway's file", async () => {
    const dir = tempDir();
    const file = path.join(dir, "state.db");
    const linked = path.join(dir, "other-name.db");
    const a = await startGateway({ stateFile: file });
    try {
      fs.linkSync(file, linked);
      const err = await createGateway({ contract, stateFile: linked }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateFileError);
      expect((err as Error).message).toContain(linked);
      expect((err as Error).message).toContain(`process ${process.pid}`);
      expect((err as Error).message).toContain(`as ${file}`);
    } finally {
      await a.close();
    }
    // Once the first has closed, the other name opens it (and its identity lock is gone with it).
    const b = await startGateway({ stateFile: linked });
    await b.close();
    expect(fs.readdirSync(dir).filter((n) => n.includes(".lock"))).toEqual([]);
  });
});
