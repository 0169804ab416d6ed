// `npm start`: the freshness check of generated/ (with a stand-in generator, in a scratch folder), and the real
// script as a child process: it comes up on a free port, prints what a newcomer needs, and stops cleanly on
// SIGTERM, leaving no process behind, also when the SIGTERM goes to npm.
import type BetterSqlite3 from "better-sqlite3";
import { LIMIT_ROWS } from "../../../../src/mock/core/access/limits.js";
import { decodeJwt } from "jose";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JWT_AUDIENCE, JWT_ISSUER } from "../../../../src/mock/core/access/auth.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { ensureGenerated } from "../../../../scripts/mock/start.js";
import { mockToken } from "../../../../scripts/mock/mock-token.js";
import { SETTINGS } from "../../../../src/mock/homes/node/settings.js";

const FIXTURES_EXAMPLE = path.join(REPO_ROOT, "docs/mock-fixtures.example.yaml");
/** Where the example fixtures' analysis `status` is: line and column. */
const STATUS_AT = `${fs.readFileSync(FIXTURES_EXAMPLE, "utf8").split("\n").findIndex((l) => l.includes("status: processing")) + 1}:17`;
import { ManualClock, startGateway } from "../../../helpers/mock.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "mock-start-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("ensureGenerated", () => {
  const root = path.join(scratch, "repo");
  const generatedDir = path.join(root, "generated");
  const cacheFile = path.join(root, "node_modules/.cache/avt-mock/generated.json");
  let calls = 0;
  let fail = false;
  // Stands in for scripts/contract/generate.ts: derives the three files from spec/.
  const generate = async ({ outDir }: { outDir: string }) => {
    calls++;
    if (fail) throw new Error("spec/openapi.yaml:3:1 error broken");
    const spec = fs.readFileSync(path.join(root, "spec/openapi.yaml"), "utf8");
    for (const f of ["openapi.yaml", "openapi.json", "schema.d.ts"]) fs.writeFileSync(path.join(outDir, f), `${f}\n${spec}`);
  };
  const run = () => ensureGenerated({ root, generatedDir, cacheFile, inputs: ["spec"], generate });
  const write = (text: string) => {
    fs.mkdirSync(path.join(root, "spec"), { recursive: true });
    fs.writeFileSync(path.join(root, "spec/openapi.yaml"), text);
  };

  it("generates a missing generated/, then trusts its cache while nothing changes", async () => {
    write("v1");
    expect(await run()).toBe("regenerated");
    expect(fs.readFileSync(path.join(generatedDir, "openapi.json"), "utf8")).toBe("openapi.json\nv1");
    expect(await run()).toBe("cached");
    expect(calls).toBe(1);
  });

  it("regenerates when spec/ changed and leaves an up-to-date generated/ untouched", async () => {
    write("v2");
    expect(await run()).toBe("regenerated");
    expect(fs.readFileSync(path.join(generatedDir, "openapi.yaml"), "utf8")).toBe("openapi.yaml\nv2");
    fs.rmSync(cacheFile); // e.g. after `npm ci`: checked again, found up to date, not rewritten
    const before = fs.statSync(path.join(generatedDir, "openapi.json")).mtimeMs;
    const callsBefore = calls;
    expect(await run()).toBe("fresh");
    expect(calls).toBe(callsBefore + 1);
    expect(fs.statSync(path.join(generatedDir, "openapi.json")).mtimeMs).toBe(before);
  });

  it("notices a hand-edited generated/ and restores it", async () => {
    fs.writeFileSync(path.join(generatedDir, "schema.d.ts"), "edited");
    expect(await run()).toBe("regenerated");
    expect(fs.readFileSync(path.join(generatedDir, "schema.d.ts"), "utf8")).toBe("schema.d.ts\nv2");
  });

  it("keeps serving the existing generated/ when generating fails, and fails when there is none", async () => {
    write("v3");
    fail = true;
    const said: string[] = [];
    expect(await ensureGenerated({ root, generatedDir, cacheFile, inputs: ["spec"], generate, say: (l) => said.push(l) })).toBe("stale-kept");
    expect(said.join("\n")).toContain("spec/openapi.yaml:3:1 error broken");
    fs.rmSync(generatedDir, { recursive: true });
    await expect(run()).rejects.toThrow("broken");
    fail = false;
  });
});

/** Pids of all descendants of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) if (pp === p) out.push(child), walk(child);
  };
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The processes of `pids` still running after up to `ms` (with their command lines, to say what they are).
 * A process tree does not vanish in one instant: tsx's esbuild helper, for one, exits when its pipe closes.
 */
async function survivors(pids: number[], ms = 5000): Promise<string[]> {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids.filter(alive).map((p) => {
    try {
      return `${p} ${fs.readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ")}`;
    } catch {
      return String(p);
    }
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  exited: Promise<number | null>;
}

/** Spawns a command that runs scripts/mock/start.ts and waits for the banner's API line. */
async function launch(cmd: string, args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(cmd, args, { cwd: REPO_ROOT, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", MOCK_QUIET: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /API\s+(http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", check);
    void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
  return { child, output: () => out, url, exited };
}

const linux = process.platform === "linux";

/**
 * The time budget of a test that starts processes: PER_PROCESS_MS for each process it starts, one after the other.
 * A process here is a Node program that loads the mock (tsx and the node it runs the script in, npm, the bundle),
 * or npm's shell: about half a second each on an idle machine, ten times that at a load average near 20 on two
 * cores, and three times that again as margin. One tsx run (TSX) comes to the suite's 30 s default.
 */
const PER_PROCESS_MS = 15_000;
const budget = (processes: number) => processes * PER_PROCESS_MS;
/** `tsx script.ts`: tsx, and the node it runs the script in. */
const TSX = 2;
/** `npm start`: npm, its shell, and node running the bundle (scripts/mock/run-bundled.mjs). */
const NPM_START = 3;
/** `node scripts/mock/run-bundled.mjs …`: the one node process. */
const NODE = 1;
/** `npm run -s mock:token`: npm, its shell, tsx and the node it runs the script in. */
const NPM_RUN_TSX = 4;

describe.runIf(linux)("scripts/mock/start.ts as a process", () => {
  it("comes up on a free port, prints URLs, demo keys and a curl, serves /health, and on SIGTERM exits 0 leaving no process", async () => {
    const s = await launch(path.join(REPO_ROOT, "node_modules/.bin/tsx"), ["scripts/mock/start.ts", "--no-generate"]);
    const health = await fetch(`${s.url}/health`);
    expect(health.status).toBe(200);
    const banner = s.output();
    for (const text of [`${s.url}/swagger.html`, `${s.url}/openapi.yaml`, `${s.url}/health`, "pk_test_demo_pro", "pk_test_demo_frozen", `curl -i -H "X-API-Key: pk_test_demo_pro" ${s.url}/v1/analyses`]) {
      expect(banner).toContain(text);
    }
    const tree = descendants(s.child.pid!);
    expect(tree.length).toBeGreaterThan(0); // tsx runs the script in a child node process
    // To that process, not to tsx: tsx relays a signal only if its child acknowledges it within 30 ms, else it
    // SIGKILLs it (exit 143), which a loaded machine can miss. The mock's own handling is what is tested here.
    process.kill(tree[0]!, "SIGTERM");
    expect(await s.exited, s.output()).toBe(0);
    expect(s.output()).toContain("Stopped.");
    expect(await survivors([s.child.pid!, ...tree])).toEqual([]);
  }, budget(TSX));

  it("stops too when the SIGTERM goes to `npm start` (which does not pass it through its shell)", async () => {
    const s = await launch("npm", ["start", "--silent", "--", "--no-generate"]);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const tree = descendants(s.child.pid!);
    s.child.kill("SIGTERM");
    await s.exited;
    // The server process notices its launcher is gone within a second, drains and exits.
    expect(await survivors(tree, 10_000)).toEqual([]);
  }, budget(NPM_START));

  it("refuses a malformed keys file with its path and position", async () => {
    const bad = path.join(scratch, "keys.json");
    fs.writeFileSync(bad, '{"keys": [\n  {"key": "pk_test_abcd",}\n]}');
    const s = launch(path.join(REPO_ROOT, "node_modules/.bin/tsx"), ["scripts/mock/start.ts", "--no-generate"], { MOCK_KEYS_FILE: bad });
    await expect(s).rejects.toThrow(`${bad}:2:26: invalid JSON`);
  }, budget(TSX));
});

describe.runIf(linux)("scripts/mock/start.ts: the controls of issue 12", () => {
  const tsx = path.join(REPO_ROOT, "node_modules/.bin/tsx");
  /** Runs start.ts to its exit (bad settings stop it before it listens). */
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(tsx, ["scripts/mock/start.ts", "--no-generate", ...args], { cwd: REPO_ROOT, env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout!.on("data", (c: Buffer) => (out += c));
      child.stderr!.on("data", (c: Buffer) => (out += c));
      child.on("exit", (code) => resolve({ code, out }));
    });

  it("--help lists every control with its variable", async () => {
    const { code, out } = await run(["--help"]);
    expect(code).toBe(0);
    for (const text of ["--latency <ms>", "MOCK_LATENCY_MS", "100-800", "--state <file>", "MOCK_STATE_FILE", "/__mock/reset", "--stateless", "MOCK_STATELESS=1", "--keys <file>", "--quiet"]) {
      expect(out).toContain(text);
    }
    // The frontend guide documents each of them (PORT and HOST as variables).
    const section = fs.readFileSync(path.join(REPO_ROOT, "docs/frontend.md"), "utf8");
    // The caps' flags are documented in docs/limits.md instead (test/mock/core/access/limits-doc.test.ts checks them there).
    const capFlags = LIMIT_ROWS.map((r) => `--${r.flag}`);
    const flags = [...out.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => !["--port", "--host", "--help", ...capFlags].includes(f));
    expect(flags.length).toBeGreaterThan(5);
    for (const f of flags) expect(section, f).toContain(f);
    for (const v of ["MOCK_LATENCY_MS", "MOCK_STATE_FILE", "MOCK_STATELESS", "MOCK_FIXTURES", "PORT=", "HOST="]) expect(section, v).toContain(v);
    // So does --help, every variable of the settings table among them.
    for (const s of Object.values(SETTINGS)) if ("env" in s && s.env) expect(out, s.env).toContain(s.env);
  }, budget(TSX));

  it("refuses a bad cap naming its flag (exit 2)", async () => {
    expect(await run(["--max-records", "0"])).toEqual({ code: 2, out: '--max-records must be a whole number of at least 1, not "0".\n' });
    expect(await run(["--stream-idle-ms", "soon"])).toEqual({ code: 2, out: '--stream-idle-ms must be a whole number of at least 1000, not "soon".\n' });
  }, budget(2 * TSX));

  it("refuses a bad latency naming the variable or flag, and --state with --stateless (exit 2)", async () => {
    expect(await run([], { MOCK_LATENCY_MS: "slow" })).toEqual({ code: 2, out: 'MOCK_LATENCY_MS must be a delay in milliseconds such as 300, or a range such as 100-800; got "slow".\n' });
    expect((await run(["--latency", "9-1"])).out).toMatch(/^--latency must be a delay in milliseconds/);
    expect(await run(["--stateless", "--state", path.join(scratch, "s.json")])).toMatchObject({ code: 2, out: expect.stringMatching(/use one or the other/) });
  }, budget(3 * TSX));

  it("MOCK_STEP_MS=abc stops the start, naming it (exit 2)", async () => {
    expect(await run([], { MOCK_STEP_MS: "abc" })).toEqual({ code: 2, out: 'MOCK_STEP_MS must be a whole number of milliseconds from 1 to 86400000; got "abc".\n' });
  }, budget(TSX));

  it("an invalid fixtures file stops the start, naming the record and the rule (exit 1)", async () => {
    const file = path.join(scratch, "bad-fixtures.yaml");
    fs.writeFileSync(file, fs.readFileSync(FIXTURES_EXAMPLE, "utf8").replace("status: processing", "status: exploded"));
    const { code, out } = await run(["--fixtures", file]);
    expect(code).toBe(1);
    expect(out).toContain(`Bad fixtures file (MOCK_FIXTURES / --fixtures): ${file}:${STATUS_AT}: workspaces.ws_Dashboard01.Analysis.0.status: analysis anl_01DashCall00000000000001: must be equal to one of the allowed values`);
  }, budget(TSX));

  it("--seed N mints the same ids and secrets on every start, whatever other workspaces did first; MOCK_SEED too", async () => {
    const story = async (seed: string[], env: Record<string, string>, otherFirst: boolean) => {
      const s = await launch(tsx, ["scripts/mock/start.ts", "--no-generate", ...seed], env);
      try {
        const post = async (key: string, p: string, body: unknown) =>
          (await (await fetch(`${s.url}${p}`, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "application/json" }, body: JSON.stringify(body) })).json()) as Record<string, string>;
        if (otherFirst) await post("pk_test_demo_free", "/v1/analyses", { media_url: "https://media.example.com/a.mp3", media_type: "audio" });
        const analysis = await post("pk_test_demo_pro", "/v1/analyses", { media_url: "https://media.example.com/a.mp3", media_type: "audio" });
        const key = await post("pk_test_demo_pro", "/v1/keys", { name: "ci", environment: "test" });
        return [analysis.id, key.id, key.secret];
      } finally {
        s.child.kill("SIGTERM");
        await s.exited;
      }
    };
    const first = await story(["--seed", "7"], {}, false);
    expect(first[0]).toMatch(/^anl_/);
    expect(await story([], { MOCK_SEED: "7" }, true)).toEqual(first);
    expect((await story(["--seed", "8"], {}, false))[0]).not.toBe(first[0]);
  }, budget(3 * TSX));

  it("started with --fixtures on the story example, serves its completed analysis's transcript and speakers (200)", async () => {
    const s = await launch(tsx, ["scripts/mock/start.ts", "--no-generate", "--fixtures", "docs/mock-fixtures.story.example.yaml"]);
    const get = async (p: string) => fetch(`${s.url}/v1/analyses/anl_01ReviewCall0000000000001${p}`, { headers: { "X-API-Key": "pk_test_call_review_demo" } });
    const t = await get("/transcript");
    expect(t.status).toBe(200);
    expect(((await t.json()) as { segments: unknown[] }).segments).toHaveLength(3);
    expect(((await (await get("/speakers")).json()) as { data: Array<{ segment_count: number }> }).data.map((x) => x.segment_count)).toEqual([2, 1]);
    s.child.kill("SIGTERM");
    await s.exited;
  }, budget(TSX));

  it("refuses a malformed state file with its location and leaves it alone", async () => {
    const file = path.join(scratch, "broken-state.json");
    fs.writeFileSync(file, '{"version": 1, "states": {"keys": 5}}');
    const { code, out } = await run(["--state", file]);
    expect(code).toBe(1);
    expect(out).toContain(`Bad state file (MOCK_STATE_FILE / --state), left as it is: ${file}:1:35: states.keys: must be an object`);
    expect(fs.readFileSync(file, "utf8")).toBe('{"version": 1, "states": {"keys": 5}}');
  }, budget(TSX));

  it("writes the state file when stopped by SIGTERM, and shows the controls in the banner", async () => {
    const file = path.join(scratch, "kept-state.json");
    const s = await launch(tsx, ["scripts/mock/start.ts", "--no-generate", "--latency", "1-2"], { MOCK_STATE_FILE: file });
    expect(s.output()).toContain(`State        kept in ${file}; forget it: curl -X POST ${s.url}/__mock/reset`);
    expect(s.output()).toContain("Latency      1-2 ms on every answer under /v1, /aria and /ws");
    expect(s.output()).toContain(`Clock        curl ${s.url}/__mock/clock`);
    expect(s.output()).toContain(`Faults       curl ${s.url}/__mock/faults`);
    const created = await fetch(`${s.url}/v1/webhooks`, {
      method: "POST",
      headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://hooks.northwind.example/in", event_types: ["report.ready"] }),
    });
    const hook = (await created.json()) as { id: string };
    // The SIGTERM goes to the node process running start.ts, not to tsx above it: tsx relays a signal only if its
    // child acknowledges it within 30 ms and SIGKILLs it otherwise (exit 143), which a loaded machine can miss
    // while the validators warm up. What is tested here is the mock's own handling.
    const [script] = descendants(s.child.pid!);
    process.kill(script ?? s.child.pid!, "SIGTERM");
    expect(await s.exited, s.output()).toBe(0);
    const db = new Database(file, { readonly: true });
    const part = db.prepare("SELECT value FROM parts WHERE name = 'webhooks'").get() as { value: string };
    db.close();
    expect(JSON.parse(part.value).webhooks.map((h: { id: string }) => h.id)).toEqual([hook.id]);
  }, budget(TSX));
});

describe.runIf(linux)("--state through `npm start`'s bundle (better-sqlite3 is a native addon, kept out of the bundle)", () => {
  const business = { "X-API-Key": "pk_test_demo_business", "Content-Type": "application/json" };
  const createBoard = async (url: string, name: string) => {
    const res = await fetch(`${url}/v1/boards`, { method: "POST", headers: business, body: JSON.stringify({ name }) });
    return res.status === 201 ? ((await res.json()) as { id: string }).id : null;
  };

  it("npm start -- --state FILE keeps a created resource across a restart", async () => {
    const file = path.join(scratch, "npm-start.db");
    const a = await launch("npm", ["start", "--silent", "--", "--no-generate", "--state", file]);
    const id = await createBoard(a.url, "Through npm start");
    expect(id).toMatch(/^brd_/);
    const tree = descendants(a.child.pid!);
    a.child.kill("SIGTERM");
    await a.exited;
    expect(await survivors(tree, 10_000)).toEqual([]); // stopped, its last writes done
    const b = await launch("npm", ["start", "--silent", "--", "--no-generate", "--state", file]);
    try {
      expect((await fetch(`${b.url}/v1/boards/${id}`, { headers: business })).status).toBe(200);
    } finally {
      const tree = descendants(b.child.pid!);
      b.child.kill("SIGTERM");
      await b.exited;
      await survivors(tree, 10_000);
    }
  }, budget(2 * NPM_START));

  it("loses no acknowledged create when killed with SIGKILL mid-burst (kill -9)", async () => {
    const file = path.join(scratch, "killed.db");
    const bundled = ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--no-generate", "--quiet", "--state", file];
    const a = await launch(process.execPath, bundled); // one process: the server itself, killed without warning
    const acknowledged: string[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const id = await createBoard(a.url, `Board ${w}.${i}`).catch(() => null);
        if (id && !killed) acknowledged.push(id);
        if (acknowledged.length >= 120 && !killed) {
          killed = true;
          a.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    expect(await a.exited).toBe(null); // killed by the signal
    expect(acknowledged.length).toBeGreaterThanOrEqual(120);
    const b = await launch(process.execPath, bundled);
    try {
      const statuses = await Promise.all(acknowledged.map(async (id) => [id, (await fetch(`${b.url}/v1/boards/${id}`, { headers: business })).status]));
      expect(statuses.filter(([, status]) => status !== 200)).toEqual([]);
    } finally {
      b.child.kill("SIGTERM");
      await b.exited;
    }
  }, budget(2 * NODE));
});

describe("scripts/mock/mock-token.ts (npm run mock:token)", () => {
  /** The command's code in-process (mockToken): its exit code and what it writes, stderr not a terminal. */
  const mint = async (...args: string[]) => {
    let out = "";
    let err = "";
    const code = await mockToken(args, { out: (t) => (out += t), err: (t) => (err += t), errIsTTY: false });
    return { code, out, err };
  };
  /** The command as the docs give it, `npm run -s mock:token -- …`, to its exit. */
  const mintThroughNpm = (...args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn("npm", ["run", "-s", "mock:token", "--", ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout!.on("data", (c: Buffer) => (out += c));
      child.stderr!.on("data", (c: Buffer) => (err += c));
      child.on("exit", (code) => resolve({ code, out, err }));
    });
  /** A request with the token to a gateway: its status and rate limit. */
  const call = async (url: string, token: string) => {
    const res = await fetch(`${url}/v1/analyses`, { headers: { Authorization: `Bearer ${token}` } });
    await res.body?.cancel();
    return { status: res.status, limit: res.headers.get("x-ratelimit-limit") };
  };

  it("mints tokens the gateway accepts (plan, workspace) or refuses (--expired: 401, --frozen: 403); bad options exit 2", async () => {
    const g = await startGateway({ clock: new ManualClock(Date.now()) }); // the script signs with the real time
    try {
      const free = await mint("--plan", "free", "--workspace", "ws_MintedFree01");
      expect(free.code).toBe(0);
      expect(free.out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/); // only the token on stdout
      expect(decodeJwt(free.out.trim())).toMatchObject({ workspace_id: "ws_MintedFree01", plan: "free" });
      expect(await call(g.url, free.out.trim())).toEqual({ status: 200, limit: "30" });
      expect((await call(g.url, (await mint("--expired")).out.trim())).status).toBe(401);
      expect((await call(g.url, (await mint("--frozen")).out.trim())).status).toBe(403);
      const bad = await mint("--plan", "gold");
      expect(bad.code).toBe(2);
      expect(bad.err).toContain("--plan must be one of");
      expect(bad.out).toBe("");
      // The longest lifetime the gateway accepts, and the iss and aud it requires; a longer one is refused.
      const day = (await mint("--expires-in", "24h")).out.trim();
      expect(decodeJwt(day)).toMatchObject({ iss: JWT_ISSUER, aud: JWT_AUDIENCE });
      expect(await call(g.url, day)).toMatchObject({ status: 200 });
      const tooLong = await mint("--expires-in", "2d");
      expect(tooLong.code).toBe(2);
      expect(tooLong.err).toContain("--expires-in may be at most 24h");
    } finally {
      await g.close();
    }
  });

  // End to end, once: the command the docs give, through npm and tsx (what it computes is checked above, in-process).
  it("`npm run -s mock:token -- --plan free --workspace …` exits 0 printing only a token the gateway accepts", async () => {
    const g = await startGateway({ clock: new ManualClock(Date.now()) });
    try {
      const free = await mintThroughNpm("--plan", "free", "--workspace", "ws_MintedFree01");
      expect(free.code, free.err).toBe(0);
      expect(free.out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/); // only the token on stdout: TOKEN=$(npm run -s mock:token) works
      expect(await call(g.url, free.out.trim())).toEqual({ status: 200, limit: "30" });
    } finally {
      await g.close();
    }
  }, budget(NPM_RUN_TSX));
});
