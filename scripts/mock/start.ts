// `npm start`: brings the mock gateway up on http://127.0.0.1:4010 (PORT, HOST), regenerating generated/ first
// when spec/ has moved on. Prints where everything is, the demo keys and a curl to paste. Ctrl-C or SIGTERM
// drains and stops it; Prism runs in-process (loaded only when a request needs it), so nothing is left behind.
//
// Is generated/ stale? The only exact answer is to generate into a scratch folder and compare bytes, which takes
// a few seconds (lint + bundle). So the answer is remembered in node_modules/.cache/avt-mock/generated.json, as
// hashes of the inputs (spec/ and the generator's own files) and of generated/: while both hashes are unchanged,
// later starts skip the check. generated/ is rewritten only when its bytes differ.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import {
  createGateway,
  demoKeys,
  FixturesError,
  KeysFileError,
  LimitError,
  limitsFromFlags,
  limitsHelp,
  startSecret,
  loadContract,
  withLimitScale,
  parseUpstream,
  StateFileError,
  UpstreamError,
  VIOLATIONS_PATH,
  type Gateway,
  type KeyRecord,
} from "../../src/mock/index.js";
import { RedisSetupError } from "../../src/mock/engines/redis/redis.js";
import { StateDatabaseError } from "../../src/mock/engines/postgres/migrate.js";
import { runMigrate } from "./migrate.js";
import { jsonLog } from "../../src/mock/homes/node/observability/json-log.js";
import { consoleSink, redact as redactUrl } from "../../src/mock/core/pipeline/log.js";
import { refuseMockSettings } from "../../src/mock/proxy/upstream.js";
import { envOnlyHelp, LIMIT_SETTINGS, readSettings, SettingsError, SETTINGS, type Values } from "../../src/mock/homes/node/settings.js";
import { minuteLimit, dailyLimit, type RateLimitPolicy } from "../../src/contract/policy.js";
import { GENERATED, ROOT } from "../lib/paths.js";

const GENERATED_FILES = ["openapi.yaml", "openapi.json", "schema.d.ts"];
/** What generated/ is made from: the contract and the generator (its code, lint rules and pinned tools). */
const INPUTS = ["spec", "scripts/contract/generate.ts", "scripts/lib", "scripts/redocly", "redocly.yaml", "package-lock.json"];

export type Freshness = "cached" | "fresh" | "regenerated" | "stale-kept";

export interface EnsureOptions {
  root: string;
  generatedDir: string;
  cacheFile: string;
  inputs?: string[];
  generate: (opts: { outDir: string }) => Promise<unknown>;
  say?: (line: string) => void;
}

async function listFiles(p: string): Promise<string[]> {
  const stat = await fs.stat(p).catch(() => null);
  if (!stat) return [];
  if (stat.isFile()) return [p];
  const entries = await fs.readdir(p, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => listFiles(path.join(p, e.name))));
  return nested.flat();
}

/** Hash of the relative paths and bytes of the files under `rels` (files or folders). */
async function hashFiles(base: string, rels: string[]): Promise<string> {
  const h = createHash("sha256");
  const files = (await Promise.all(rels.map((r) => listFiles(path.join(base, r))))).flat().sort();
  for (const f of files) {
    h.update(path.relative(base, f) + "\0");
    h.update(await fs.readFile(f));
    h.update("\0");
  }
  return h.digest("hex");
}

async function outputsHash(dir: string): Promise<string | null> {
  for (const f of GENERATED_FILES) if (!(await fs.stat(path.join(dir, f)).catch(() => null))) return null;
  return hashFiles(dir, GENERATED_FILES);
}

/** Makes sure generated/ is what `npm run generate` makes of spec/ now, rewriting it only if it is not. */
export async function ensureGenerated(o: EnsureOptions): Promise<Freshness> {
  const say = o.say ?? (() => {});
  const inputs = await hashFiles(o.root, o.inputs ?? INPUTS);
  const outputs = await outputsHash(o.generatedDir);
  const cache = JSON.parse(await fs.readFile(o.cacheFile, "utf8").catch(() => "{}")) as { inputs?: string; outputs?: string };
  if (outputs && cache.inputs === inputs && cache.outputs === outputs) return "cached";

  say(
    outputs
      ? "Checking generated/ against spec/ (done once after install and after each change to spec/; takes a few seconds)…"
      : "generated/ is missing: generating it from spec/…",
  );
  const t0 = performance.now();
  await fs.mkdir(path.dirname(o.cacheFile), { recursive: true });
  const scratch = await fs.mkdtemp(path.join(path.dirname(o.cacheFile), "scratch-"));
  try {
    try {
      await o.generate({ outDir: scratch });
    } catch (e) {
      if (!outputs) throw e;
      say(`generate failed, so the mock serves the existing generated/ (it may be stale):\n${(e as Error).message}`);
      return "stale-kept";
    }
    const changed: string[] = [];
    for (const f of GENERATED_FILES) {
      const fresh = await fs.readFile(path.join(scratch, f));
      const current = await fs.readFile(path.join(o.generatedDir, f)).catch(() => null);
      if (!current || !current.equals(fresh)) changed.push(f);
    }
    if (changed.length) {
      await fs.mkdir(o.generatedDir, { recursive: true });
      // Copy next to the target, then rename: readers never see a half-written file.
      for (const f of changed) {
        const tmp = path.join(o.generatedDir, `.${f}.${process.pid}.tmp`);
        await fs.copyFile(path.join(scratch, f), tmp);
        await fs.rename(tmp, path.join(o.generatedDir, f));
      }
      say(`Regenerated ${changed.map((f) => "generated/" + f).join(", ")} from spec/.`);
    }
    await fs.writeFile(o.cacheFile, JSON.stringify({ inputs, outputs: await outputsHash(o.generatedDir) }) + "\n");
    if (!changed.length) say(`generated/ is up to date (checked in ${((performance.now() - t0) / 1000).toFixed(1)} s).`);
    return changed.length ? "regenerated" : "fresh";
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Runs scripts/contract/generate.ts (what `npm run generate` runs) in a child process, writing into `outDir`: it needs tsx
 * and Redocly, which the mock does not (npm start runs bundled, without tsx: scripts/mock/run-bundled.mjs). Rejects
 * with what generate reported (file and line) when it fails.
 */
function generateInto(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/contract/generate.ts"), `--out=${outDir}`], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve();
      reject(new Error(err.replace(/^generate failed; generated\/ was left as it was\.\n/, "").trim() || `scripts/contract/generate.ts exited with ${code}`));
    });
  });
}

/**
 * How the user runs the mock: from the repository (`npm start`, `npm run -s mock:token --`) or from the installed
 * package (`npx avt-mock`, `npx avt-mock token`, scripts/mock/bin-mock.ts). The help and the banner name these, and
 * name each doc by its path from where the command runs (docs/… in the repository, node_modules/@avt/mock/docs/…
 * once installed: the package ships the docs they name, build-packages.ts MOCK_DOCS).
 */
export interface Invocation {
  /** The usage line's command and its options. */
  usage: string;
  /** The command, then what comes before its own flags (`npm start --`). */
  options: string;
  start: string;
  token: string;
}
export const FROM_REPOSITORY: Invocation = { usage: "npm start [-- options]", options: "npm start --", start: "npm start", token: "npm run -s mock:token --" };
export const INSTALLED: Invocation = { usage: "npx avt-mock [options]", options: "npx avt-mock", start: "npx avt-mock", token: "npx avt-mock token" };

/** Each `docs/…` a text names, as a path from the working directory to that doc where the mock runs from. */
function docPaths(text: string): string {
  return text.replace(/(?<![\w/.])docs\/([\w.-]*\w)/g, (_, file: string) => path.relative(process.cwd(), path.join(ROOT, "docs", file)));
}

const help = (inv: Invocation) => docPaths(`${inv.usage}   Start the mock gateway.${inv === FROM_REPOSITORY ? "" : `
${inv.token} [options]   Mint a bearer JWT the mock accepts (${inv.token} --help).`}

  --port <n>        Port (env PORT, default 4010; 0 picks a free one)
  --host <addr>     Address to listen on (env HOST, default 127.0.0.1)
  --keys <file>     JSON file of extra API keys (env MOCK_KEYS_FILE); see docs/mock-keys.example.json
  --latency <ms>    Delay every answer under /v1, /aria and /ws: 300, or 100-800 for a random delay in that
                    range (env MOCK_LATENCY_MS; at most 60000)
  --state <file>    Keep created keys, webhooks, tokens and resources in this SQLite database across restarts
                    and crashes (env MOCK_STATE_FILE; a JSON state file is migrated); POST /__mock/reset empties it.
                    A postgres://… URL keeps it in PostgreSQL, shared by every replica on it (docs/sandbox.md)
  --ownership       With --state postgres://…: each workspace owned by one replica under a lease, the others
                    forwarding its requests there (env MOCK_OWNERSHIP=1; every replica of a set, or none)
  --redis <url>     Count rate limits in this Redis, shared with every replica on it (env MOCK_REDIS_URL);
                    a shared sandbox as replicas: docs/sandbox.md
  --allow-loopback-webhooks
                    Accept webhook URLs on loopback (127.0.0.1, [::1], localhost) and deliver to them (env
                    MOCK_ALLOW_LOOPBACK_WEBHOOKS=1); without it they answer 422, so no tenant can probe this machine
  --stateless       Answer every operation from the contract's examples and keep nothing requests create
                    (env MOCK_STATELESS=1); Prefer works as always
  --upstream <url>  Proxy mode (env MOCK_UPSTREAM): forward every request to this backend (http or https) and
                    stream its answers back unchanged, checking each against the contract; each departure is
                    logged on one line and listed at GET /__mock/violations. No credentials, limits, examples
                    or state of the mock's then (so not with --stateless, --state, --latency or --keys)
  --fixtures <file> Load your own records (JSON or YAML) into named workspaces, checked against the contract
                    (env MOCK_FIXTURES); see docs/frontend.md
  --seed <n>        Mint ids and secrets from this seed (env MOCK_SEED): the same on every start, one stream per
                    workspace, whatever order workspaces are used in; as createSimulation({ seed: n }). The secrets
                    then follow from the seed: for test runs, not a mock others reach
  --limit-scale <n> Multiply every plan's per-minute and daily limits by n (env MOCK_LIMIT_SCALE; default 1,
                    the contract's): for conformance runs, with verify --limit-scale n; see docs/backend.md
  --no-generate     Do not check generated/ against spec/ (env MOCK_NO_GENERATE=1)
  --quiet           No request log lines (env MOCK_QUIET=1); with --upstream the violation lines still show
  --log-format <f>  text (default) or json: log lines as JSON objects (pino), each request with its operation,
                    status, time and X-Request-Id (env MOCK_LOG_FORMAT; the sandbox recipe uses json)
  -h, --help        This help

Caps (docs/limits.md; over one, a request answers 403 limit_reached or 503 capacity_exceeded, and nothing
is ever deleted to make room):
${limitsHelp()}

Other settings (env only):
${envOnlyHelp().join("\n")}

MOCK_JWT_SECRET: on an address beyond loopback without it, a random one is made for the process and the banner
prints how ${inv.token.replace(/ --$/, "")} uses it.
Every value is checked at start: one that does not parse stops the mock, naming the flag or variable.`);


function banner(g: Gateway, url: string, operations: number, fileKeys: KeyRecord[], keysFile: string | undefined, ms: number, controls: string[], tokenCommand: string, inv: Invocation): string {
  const policy: RateLimitPolicy = g.contract.policy;
  const general = policy.categories.find((c) => c.default)!;
  const info = g.contract.doc.info ?? {};
  const pad = (s: string, n: number) => s.padEnd(n);
  const demo = demoKeys(policy).map((k) => {
    const what = k.frozen
      ? "frozen workspace: every request answers 403"
      : `${k.plan}: ${minuteLimit(policy, k.plan, general, k.rate_limit_rpm)}/min${k.rate_limit_rpm ? ` (key's rate_limit_rpm)` : ""}, ${dailyLimit(policy, k.plan)}/day`;
    return `    ${pad(k.key, 24)} ${what}`;
  });
  const lines = [
    "",
    `  Mock gateway for ${info.title ?? "the API"} ${info.version ?? ""} (${operations} operations) — ready in ${(ms / 1000).toFixed(1)} s`,
    "",
    `  API          ${url}`,
    `  Swagger UI   ${url}/swagger.html`,
    `  OpenAPI      ${url}/openapi.yaml`,
    `  Health       ${url}/health`,
    ...controls,
    "",
    "  Demo keys (send as X-API-Key; on SSE and WebSocket also as ?token=):",
    ...demo,
    ...(fileKeys.length ? [`    + ${fileKeys.length} key(s) from ${keysFile}`] : []),
    `  Bearer JWT:  ${tokenCommand} --plan pro      (--help for workspace, expiry, frozen)`,
    "",
    "  Try it:",
    `    curl -i -H "X-API-Key: pk_test_demo_pro" ${url}/v1/analyses`,
    `    curl -i -H "X-API-Key: pk_test_demo_pro" -H "Prefer: code=404" ${url}/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0`,
    `    curl -N "${url}/v1/analysis/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/stream?token=pk_test_demo_pro"`,
    "",
    `  Ctrl-C stops it; \`${inv.options} --help\` lists the settings. One line per request follows.`,
    "",
  ];
  return docPaths(lines.join("\n"));
}

function proxyBanner(g: Gateway, url: string, upstream: string, ms: number, inv: Invocation): string {
  const info = g.contract.doc.info ?? {};
  return [
    "",
    `  Contract proxy for ${info.title ?? "the API"} ${info.version ?? ""} (${g.contract.router.routes.length} operations) — ready in ${(ms / 1000).toFixed(1)} s`,
    "",
    `  API          ${url}  →  ${upstream}`,
    `  Violations   ${url}${VIOLATIONS_PATH}   (curl -X DELETE ${url}${VIOLATIONS_PATH} forgets them)`,
    `  Swagger UI   ${url}/swagger.html`,
    `  OpenAPI      ${url}/openapi.yaml`,
    `  Health       ${url}/health   (this proxy's; the backend's is ${url}/v1/health)`,
    "",
    "  Every request is forwarded to the backend as it came, and its answer comes back unchanged; each exchange is",
    "  checked against the contract, and each departure is written below on one line beginning `violation`.",
    "  The mock's keys, limits, examples and state play no part in this mode.",
    "",
    `  Ctrl-C stops it; \`${inv.options} --help\` lists the settings. One line per request and one per violation follow.`,
    "",
  ].join("\n");
}

export async function main(inv: Invocation = FROM_REPOSITORY): Promise<void> {
  if (process.argv[2] === "migrate") process.exit(await runMigrate(process.argv.slice(3)));
  // Times are since the process started (performance.now()'s origin), module loading included.
  // Every flag and variable is read and checked here, through one table (src/mock/homes/node/settings.ts): a bad value stops
  // the start and names the flag or variable (decision MC1).
  let args: Values<typeof SETTINGS>;
  try {
    args = readSettings(process.argv.slice(2), process.env, { ...SETTINGS, ...LIMIT_SETTINGS } as typeof SETTINGS);
  } catch (e) {
    console.error(e instanceof SettingsError && e.usage ? `${e.message}\n\n${help(inv)}` : (e as Error).message);
    process.exit(2);
  }
  if (args.help) {
    console.log(help(inv));
    return;
  }
  const { port, host, keysFile, stateFile, stateless, latency: latencyMs, upstream, quiet, fixtures, redis } = args;
  let limits;
  try {
    limits = limitsFromFlags(args as Record<string, unknown>);
  } catch (e) {
    console.error((e as LimitError).message);
    process.exit(2);
  }
  // Beyond loopback the public dev secret would let anyone mint tokens: a secret of this process's, unless given.
  const jwt = startSecret(host, process.env);
  if (stateFile && stateless) {
    console.error("--state (MOCK_STATE_FILE) keeps what requests create, and --stateless (MOCK_STATELESS) keeps nothing: use one or the other.");
    process.exit(2);
  }
  if (upstream !== undefined) {
    try {
      refuseMockSettings({ stateless, stateFile, latencyMs, keysFile, fixtures, redisUrl: redis });
    } catch (e) {
      console.error((e as UpstreamError).message);
      process.exit(2);
    }
  }

  // An installed package (`npx avt-mock`, scripts/publish/build-packages.ts) ships generated/ and no spec/: nothing to check.
  if (!args.noGenerate && existsSync(path.join(ROOT, "spec"))) {
    try {
      await ensureGenerated({
        root: ROOT,
        generatedDir: GENERATED,
        cacheFile: path.join(ROOT, "node_modules/.cache/avt-mock/generated.json"),
        generate: (o) => generateInto(o.outDir),
        say: (l) => console.log(l),
      });
    } catch (e) {
      console.error(`Cannot start: generated/ is missing and generating it failed.\n${(e as Error).message}`);
      process.exit(1);
    }
  }

  const json = !quiet && args.logFormat === "json" ? jsonLog(args.replica) : null;
  let gateway: Gateway;
  let fileKeys: KeyRecord[] = [];
  try {
    const contract = withLimitScale(loadContract(GENERATED), args.limitScale);
    gateway = await createGateway({
      contract,
      keysFile,
      ...(quiet ? { log: null } : args.logFormat === "json" ? { log: json!.line, requestLog: json!.request } : {}),
      upstream,
      violationLog: json?.line ?? consoleSink,
      streamIntervalMs: args.streamIntervalMs,
      stepMs: args.stepMs,
      seed: args.seed,
      webhookDelayMs: args.webhookDelayMs,
      fixtures,
      warm: true,
      latencyMs,
      stateless,
      stateFile,
      ownership: args.ownership,
      redisUrl: redis,
      limits,
      allowLoopbackWebhooks: args.allowLoopbackWebhooks,
      jwtSecret: jwt.secret,
    });
    fileKeys = gateway.keys.list().filter((k) => !demoKeys(contract.policy).some((d) => d.key === k.key));
  } catch (e) {
    if (e instanceof UpstreamError) {
      console.error(e.message);
      process.exit(2);
    }
    const prefix =
      e instanceof KeysFileError
        ? "Bad keys file (MOCK_KEYS_FILE / --keys): "
        : e instanceof StateDatabaseError
          ? "State database (--state postgres://…): "
          : e instanceof StateFileError
          ? "Bad state file (MOCK_STATE_FILE / --state), left as it is: "
          : e instanceof FixturesError
            ? "Bad fixtures file (MOCK_FIXTURES / --fixtures): "
            : "Cannot start: ";
    console.error(prefix + (e as Error).message);
    process.exit(1);
  }

  let url: string;
  try {
    url = await gateway.listen(port, host);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof RedisSetupError) console.error(`Cannot start: ${e.message}`);
    else if (code === "EADDRINUSE") console.error(`Port ${port} on ${host} is already in use (another mock running?). Try: PORT=${port + 1} ${inv.start}`);
    else if (code === "EACCES") console.error(`Not allowed to listen on ${host}:${port}. Pick a port above 1023: PORT=4010 ${inv.start}`);
    else console.error(`Cannot listen on ${host}:${port}: ${(e as Error).message}`);
    process.exit(1);
  }
  // Listening on every interface: show an address a browser on this machine can open.
  const shown = /^http:\/\/(0\.0\.0\.0|\[::\])/.test(url) ? url.replace(/^http:\/\/[^/]+?(?=:\d+$)/, "http://localhost") : url;
  if (upstream !== undefined) {
    console.log(proxyBanner(gateway, shown, parseUpstream(upstream).url, performance.now(), inv));
    stopOnSignals(gateway);
    return;
  }
  const controls = [
    `  State        ${stateless ? "none kept (--stateless): the contract's examples answer" : `${stateFile ? `kept in ${redactUrl(stateFile)}` : "in memory"}; forget it: curl -X POST ${shown}/__mock/reset`}`,
    `  Clock        curl ${shown}/__mock/clock   (POST {"action": "pause" | "resume" | "advance", "ms": …})`,
    `  Faults       curl ${shown}/__mock/faults  (POST a rule; docs/frontend.md)`,
    ...(redis ? [`  Redis        ${redactUrl(redis)}: rate limits, event streams, the simulated clock and webhook deliveries shared with every replica on it`] : []),
    ...(fixtures ? [`  Fixtures     ${fixtures}: ${gateway.store.fixtureWorkspaces.join(", ")}`] : []),
    ...(latencyMs !== null ? [`  Latency      ${typeof latencyMs === "number" ? latencyMs : latencyMs.join("-")} ms on every answer under /v1, /aria and /ws`] : []),
  ];
  const tokenCommand = jwt.generated ? `MOCK_JWT_SECRET=${jwt.secret} ${inv.token}` : inv.token;
  if (jwt.generated) controls.push(`  JWT secret   made for this process (listening on ${host}, no MOCK_JWT_SECRET): tokens need it, as below`);
  console.log(banner(gateway, shown, gateway.contract.router.routes.length, fileKeys, keysFile, performance.now(), controls, tokenCommand, inv));
  stopOnSignals(gateway);
}

/** Ctrl-C, SIGTERM, or the launcher going away: drain and exit (a second signal exits at once). */
function stopOnSignals(gateway: Gateway): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.log(`\n${signal} again: exiting now.`);
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: draining and stopping…`);
    gateway.close().then(
      () => {
        console.log("Stopped.");
        process.exit(0);
      },
      (e: Error) => {
        console.error(`Error while stopping: ${e.message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  watchLauncher(() => stop("SIGTERM"));
}

/**
 * \`npm start\` runs npm → sh → tsx → this process. A SIGTERM sent to npm reaches only sh, which dies without passing
 * it on, leaving tsx and this process orphaned. So: when the process that launched our launcher goes away, stop as
 * if SIGTERM had arrived. (Ctrl-C in a terminal signals the whole process group and needs none of this.)
 */
function watchLauncher(onGone: () => void): void {
  parentOf(process.ppid, (grandparent) => {
    if (grandparent !== null && Number.isInteger(grandparent) && grandparent > 1) watch(grandparent, onGone);
  });
}

/**
 * The parent of process `pid`: from /proc on Linux, else from `ps`, asynchronously (a synchronous `ps` held up the
 * first requests by tens of milliseconds). Null when neither can tell.
 */
function parentOf(pid: number, then: (ppid: number | null) => void): void {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return then(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
  } catch {
    /* no /proc: ask ps */
  }
  execFile("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }, (err, out) => then(err ? null : Number(out.trim())));
}

function watch(grandparent: number, onGone: () => void): void {
  const timer = setInterval(() => {
    try {
      process.kill(grandparent, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH") {
        clearInterval(timer);
        onGone();
      }
    }
  }, 500);
  timer.unref();
}

// Run when executed (`tsx scripts/mock/start.ts`), not when imported by tests.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/mock/start.ts")) {
  void main();
}

