// Issue 46's row: a full `--allow-writes --stateful` verify run over eight operations of a test backend (today's mock
// gateway), with today's verifier and with the last release's (its tree from git, release-gateway.ts), each run in a
// process of its own (verify-child.ts), alternating, in the same rounds. The figure is the median of today's run
// time over the release's; the goal is at most VERIFY_TARGET. The release's verifier sends fewer cases (it has fewer
// probes), so the requests of each are reported beside.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../../lib/paths.js";
import { extractRelease, lastRelease, type Release } from "../release-gateway.js";
import { VERIFY_BENCH_OPERATIONS } from "./verify-child.js";

/** Today's full run takes at most this many times the release's. */
export const VERIFY_TARGET = 1.5;

export interface VerifyBench {
  operations: string;
  release: Release | { missing: string };
  /** Median ms of a run, and the requests it sent. */
  today: { ms: number; requests: number };
  released: { ms: number; requests: number } | null;
  /** Median over rounds of today's ms ÷ the release's in the same round. */
  ratio: number | null;
}

function runChild(root: string): { ms: number; requests: number } {
  const out = execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "scripts/bench/verify/verify-child.ts"), root], { cwd: ROOT, maxBuffer: 1 << 24 }).toString();
  return JSON.parse(out.trim().split("\n").pop()!) as { ms: number; requests: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function verifyBench(o: { rounds: number; say: (s: string) => void }): Promise<VerifyBench> {
  const release = lastRelease();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-verify-release-"));
  try {
    if (!("missing" in release)) extractRelease(release, dir);
    const today: Array<{ ms: number; requests: number }> = [];
    const released: Array<{ ms: number; requests: number }> = [];
    for (let i = 0; i < o.rounds; i++) {
      today.push(runChild(ROOT));
      if (!("missing" in release)) released.push(runChild(dir));
      o.say(`  round ${i + 1}: today ${Math.round(today.at(-1)!.ms)} ms${released.length ? `, release ${Math.round(released.at(-1)!.ms)} ms` : ""}`);
    }
    const pick = (xs: Array<{ ms: number; requests: number }>) => ({ ms: Math.round(median(xs.map((x) => x.ms))), requests: xs[0]!.requests });
    return {
      operations: VERIFY_BENCH_OPERATIONS,
      release,
      today: pick(today),
      released: released.length ? pick(released) : null,
      ratio: released.length ? median(today.map((t, i) => t.ms / released[i]!.ms)) : null,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
