// The real engines a sandbox runs on (docs/sandbox.md), started on loopback, on free ports, in temporary folders, and
// stopped after: by `npm run sandbox` and by the tests. Debian's packages, installed by .ci/run. Without them a dev
// test run skips the suites with "skipped: no redis"; under CI (CI=true) a missing engine is a failure, never a skip.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface Engine {
  url: string;
  port: number;
  /** The engine's process id now (a new one after `restart`). */
  readonly pid: number | null;
  /** Stops the engine's process (SIGKILL after 5 s) and removes its folder. */
  stop(): Promise<void>;
  /** Stops it without removing anything, to bring it back with `restart` (a lost engine). */
  pause(): Promise<void>;
  restart(): Promise<void>;
  /** What the engine has written to its log so far (PostgreSQL's stderr), for tests that read what it did. */
  log?(): string;
}

function onPath(cmd: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Why an engine's suite cannot run here, or null. Under CI this throws instead: CI installs every engine. */
export function missing(engine: "redis" | "haproxy"): string | null {
  const bin = engine === "redis" ? "redis-server" : engine;
  if (onPath(bin)) return null;
  const why = `skipped: no ${engine} (${bin} not on PATH; .ci/run installs Debian's ${bin})`;
  if (process.env.CI) throw new Error(why.replace("skipped", "CI must run this suite"));
  return why;
}

/** A free TCP port on loopback: the OS picks one, and it is released for the caller to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port: number, child: ChildProcess, log: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the engine exited (${child.exitCode}) before listening:\n${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`the engine did not listen on ${port} within ${timeoutMs} ms:\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops a child with `signal`, then SIGKILL after `graceMs`; resolves once it has exited. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => (clearTimeout(kill), resolve()));
    child.kill(signal);
  });
}

/**
 * redis-server on 127.0.0.1 and a free port, in a temporary folder, persisting nothing; or with `persist`, an
 * append-only file synced every second (the sandbox recipe: a Redis restart then keeps the clock, rate-limit counts,
 * event feeds and delivery claims, losing at most the last second; docs/sandbox.md).
 */
export async function startRedis(o: { persist?: boolean } = {}): Promise<Engine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-redis-"));
  const port = await freePort();
  let child: ChildProcess;
  let out = "";
  const launch = async () => {
    out = "";
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", ...(o.persist ? ["--appendonly", "yes", "--appendfsync", "everysec"] : ["--appendonly", "no"]), "--protected-mode", "yes"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (c: Buffer) => (out += c));
    child.stderr!.on("data", (c: Buffer) => (out += c));
    await waitForPort(port, child, () => out);
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    get pid() {
      return child.pid ?? null;
    },
    pause: () => stopChild(child),
    restart: launch,
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's PostgreSQL binaries (/usr/lib/postgresql/<version>/bin, not on PATH), the newest version installed. */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? path.join(root, newest, "bin") : null;
}

/** Why PostgreSQL's suites cannot run here, or null; under CI this throws (CI installs Debian's postgresql). */
export function missingPostgres(): string | null {
  if (postgresBin()) return null;
  const why = "skipped: no postgres (/usr/lib/postgresql/*/bin/initdb not found; .ci/run installs Debian's postgresql)";
  if (process.env.CI) throw new Error(why.replace("skipped", "CI must run this suite"));
  return why;
}

/**
 * The user and group to run PostgreSQL as: `postgres` when this process is root (initdb and postgres refuse root),
 * given to spawn itself so the engine is our own child (a wrapper such as runuser would exit before it).
 */
function postgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Stops PostgreSQL with a fast shutdown (SIGINT: sessions are cut; SIGTERM would wait for every client to leave). */
const stopPostgres = (child: ChildProcess) => stopChild(child, "SIGINT", 10_000);

/**
 * PostgreSQL on 127.0.0.1 and a free port, its cluster in a temporary folder (trust on loopback, fsync on: a commit
 * is durable as in production), its socket in that folder. The database is `postgres`, the user `postgres`.
 * `settings`: more server settings (`-c name=value`).
 */
export async function startPostgres(opts: { settings?: Record<string, string> } = {}): Promise<Engine> {
  const bin = postgresBin();
  if (!bin) throw new Error(missingPostgres() ?? "no postgres");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "avt-pg-"));
  fs.chmodSync(dir, 0o700);
  const user = postgresUser();
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, "data");
  const init = spawnSync(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"], { encoding: "utf8", cwd: dir, ...user });
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}${init.stderr}`);
  const port = await freePort();
  let child: ChildProcess;
  let out = "";
  const launch = async () => {
    out = "";
    const args = ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-c", "max_connections=200", "-c", "shared_buffers=64MB"];
    // More settings, e.g. shared_preload_libraries=pg_stat_statements for a test that counts statements.
    for (const [k, v] of Object.entries(opts.settings ?? {})) args.push("-c", `${k}=${v}`);
    child = spawn(path.join(bin, "postgres"), args, { stdio: ["ignore", "pipe", "pipe"], cwd: dir, ...user });
    child.stdout!.on("data", (c: Buffer) => (out += c));
    child.stderr!.on("data", (c: Buffer) => (out += c));
    await waitForPort(port, child, () => out);
    // Listening comes before recovery ends: connections are refused ("starting up") until this line.
    for (const until = Date.now() + 30_000; !out.includes("ready to accept connections"); ) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`postgres did not get ready:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await launch();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    get pid() {
      return child.pid ?? null;
    },
    pause: () => stopPostgres(child),
    restart: launch,
    log: () => out,
    async stop() {
      await stopPostgres(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
