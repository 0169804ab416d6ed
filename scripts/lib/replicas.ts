// Gateway replicas as a sandbox runs them: separate processes of `npm start`'s script (scripts/mock/run-bundled.mjs), on
// loopback and free ports, sharing the engines given by flags. Used by `npm run sandbox` and the sandbox's tests.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./paths.js";

export interface Replica {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM (drain), resolved on exit. */
  stop(): Promise<void>;
  /** SIGKILL: a replica that dies. */
  kill(): Promise<void>;
}

/** A keys file of `keys`, in a temporary folder (every replica reads the same). */
export function keysFile(keys: readonly object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-keys-"));
  const file = path.join(dir, "keys.json");
  fs.writeFileSync(file, JSON.stringify(keys));
  return file;
}

/** What a replica's output is kept as: the last this many characters (a sandbox runs for days, logging each request). */
const KEPT_OUTPUT = 256 * 1024;

/**
 * A replica started with `args` (after `--no-generate`, and `--quiet` unless `args` choose a `--log-format`), its
 * environment over `env`. Its output is kept (the last 256 KiB, for `output()`), and also written to `forward`
 * once it listens (the sandbox recipe's log).
 */
export async function startReplica(args: readonly string[], env: Record<string, string> = {}, forward?: NodeJS.WritableStream): Promise<Replica> {
  const quiet = args.includes("--log-format") ? [] : ["--quiet"];
  const child = spawn(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--no-generate", ...quiet, ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", MOCK_QUIET: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let listening = false;
  const keep = (c: Buffer) => {
    out += c;
    if (out.length > 2 * KEPT_OUTPUT) out = out.slice(-KEPT_OUTPUT);
    if (listening) forward?.write(c);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", () => {
      const m = /API\s+(http:\/\/\S+)/.exec(out);
      if (m) (listening = true), resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`a replica exited before listening:\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    stop: () => (child.exitCode === null && child.signalCode === null && child.kill("SIGTERM"), exited),
    kill: () => (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"), exited),
  };
}

/** `n` replicas with the same flags: one first (it makes the bundle the others reuse), then the others at once. */
export async function startReplicas(n: number, args: readonly string[], env: Record<string, string> = {}): Promise<Replica[]> {
  const first = await startReplica(args, env);
  return [first, ...(await Promise.all(Array.from({ length: n - 1 }, () => startReplica(args, env))))];
}
