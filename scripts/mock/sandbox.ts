// `npm run sandbox`: a shared sandbox on one machine as it runs on many (docs/sandbox.md): PostgreSQL for the state
// every replica shares, a Redis (append-only, so a Redis restart keeps its counts and claims), N gateway replicas
// logging JSON (pino), and HAProxy in front answering the contract's JSON errors. Every flag after `--` goes to each
// replica (`--keys`, the caps...).
//
//   npm run sandbox -- --replicas 3 --port 8080 [--sticky] [--redis URL] [--postgres URL|here] [--memory] [-- replica flags]
//   npm run sandbox -- restart r2 [--port 8080]     restarts one replica of the sandbox on that port, without a lost request
//
// PostgreSQL is started here (Debian's, in a temporary folder) unless --postgres gives one, or --memory keeps each
// replica's records its own. Ctrl-C stops everything it started.
import { parseArgs } from "node:util";
import { freePort, postgresBin, startPostgres, startRedis, type Engine } from "../lib/engines.js";
import { startHaproxy, type Balancer } from "../lib/haproxy.js";
import { startReplica, type Replica } from "../lib/replicas.js";
import { controlSocket, sendControl, serveControl } from "./sandbox-control.js";

const HELP = `npm run sandbox -- [--replicas N] [--port P] [--sticky] [--redis URL] [--postgres URL|here] [--memory] [-- replica flags]
npm run sandbox -- restart rN [--port P]

  --replicas N   gateway processes (default 2)
  --port P       where HAProxy listens, on 127.0.0.1 (default 8080; 0 picks a free one)
  --sticky       each API key to one replica (consistent hashing on X-API-Key)
  --redis URL    a Redis to share (default: start redis-server here, append-only)
  --postgres URL the state every replica shares (--state URL); default \`here\`: start Debian's PostgreSQL here
  --memory       no PostgreSQL: each replica keeps its own records in memory (then use --sticky)
  after --       flags every replica gets, as npm start takes them (--keys FILE, --max-connections N, ...)

  restart rN     in a running sandbox (the one on --port): take replica rN out of HAProxy, stop it (it drains its
                 streams, whose clients resume on another replica), start it again on its port, put it back`;

const OPTIONS = {
  replicas: { type: "string" },
  port: { type: "string" },
  redis: { type: "string" },
  sticky: { type: "boolean" },
  postgres: { type: "string" },
  memory: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Stoppable = Replica | Engine | Balancer | { stop(): Promise<void> };

async function main(): Promise<void> {
  const dash = process.argv.indexOf("--", 2);
  const own = dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash);
  const passed = dash < 0 ? [] : process.argv.slice(dash + 1);
  const { values, positionals } = parseArgs({ args: own, options: OPTIONS, allowPositionals: true });
  if (values.help) return void console.log(HELP);
  const port = Number(values.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number; got "${values.port}".`);
  if (positionals[0] === "restart") return restartCommand(positionals[1], port);
  if (positionals.length) throw new Error(`unknown command "${positionals[0]}"; the one command is restart rN (npm run sandbox -- --help)`);
  const count = Number(values.replicas ?? 2);
  if (!Number.isInteger(count) || count < 1 || count > 32) throw new Error(`--replicas must be a whole number from 1 to 32; got "${values.replicas}".`);
  if (values.memory && values.postgres) throw new Error("--memory and --postgres exclude each other: a replica's records live in one place.");
  await serve(values, count, port, passed);
}

async function restartCommand(name: string | undefined, port: number): Promise<void> {
  if (!name || !/^r\d+$/.test(name)) throw new Error(`restart needs a replica's name, as the banner shows it (r1, r2…); got "${name ?? ""}".`);
  const ok = await sendControl(controlSocket(port), `restart ${name}`, (l) => console.log(l));
  if (!ok) process.exitCode = 1;
}

async function serve(values: { redis?: string; postgres?: string; memory?: boolean; sticky?: boolean }, count: number, port: number, passed: string[]): Promise<void> {
  const started: Stoppable[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    const redisUrl = values.redis ?? (await keep(started, startRedis({ persist: true }))).url;
    const stateUrl = values.memory ? undefined : values.postgres && values.postgres !== "here" ? values.postgres : await postgresHere(started);
    const shared = ["--redis", redisUrl, ...(stateUrl ? ["--state", stateUrl] : []), "--log-format", "json", ...passed];
    const replicas: Replica[] = [];
    replicas.push(await startReplica(shared, { MOCK_REPLICA: "r1" }, process.stdout)); // makes the bundle the others reuse
    replicas.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => startReplica(shared, { MOCK_REPLICA: `r${i + 2}` }, process.stdout)))));
    started.push({ stop: () => Promise.all(replicas.map((r) => r.stop())).then(() => undefined) });
    const balancer = await keep(started, startHaproxy(replicas.map((r) => new URL(r.url).host), port || (await freePort()), { sticky: values.sticky }));
    started.push(await serveControl(controlSocket(balancer.port), { restart: (args, say) => restartReplica(replicas, balancer, shared, args[0]!, say) }).then((c) => ({ stop: async () => c.close() })));
    console.log(banner(values, replicas, balancer, redisUrl, stateUrl));
  } catch (e) {
    await stopAll();
    throw e;
  }
  let stopping = false;
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.on(sig, () => {
      if (stopping) process.exit(1);
      stopping = true;
      void stopAll().then(() => (console.log("Stopped."), process.exit(0)));
    });
  }
}

async function keep<T extends Stoppable>(started: Stoppable[], starting: Promise<T>): Promise<T> {
  const s = await starting;
  started.push(s);
  return s;
}

/** PostgreSQL started here, or none (each replica's records its own) where Debian's isn't installed, said so. */
async function postgresHere(started: Stoppable[]): Promise<string | undefined> {
  if (!postgresBin()) {
    console.error("No PostgreSQL here (no /usr/lib/postgresql/*/bin/initdb): each replica keeps its own records. Install Debian's postgresql, or pass --postgres URL.");
    return undefined;
  }
  return (await keep(started, startPostgres())).url;
}

/**
 * One replica restarted without a lost request: out of HAProxy's turn first (`maint`: new requests go to the
 * others), then SIGTERM (it finishes what it serves and closes its streams, whose clients resume elsewhere with
 * Last-Event-ID), then started again on the same port and put back once its check passes.
 */
async function restartReplica(replicas: Replica[], balancer: Balancer, args: string[], name: string, say: (l: string) => void): Promise<void> {
  const index = Number(name.slice(1)) - 1;
  const old = replicas[index];
  if (!old) throw new Error(`no replica ${name}; this sandbox has r1 to r${replicas.length}`);
  const port = new URL(old.url).port;
  await balancer.setState(name, "maint");
  say(`${name}: out of HAProxy's turn; stopping (pid ${old.child.pid})`);
  await old.stop();
  const fresh = await startReplica(args, { MOCK_REPLICA: name, PORT: port }, process.stdout);
  replicas[index] = fresh;
  await balancer.setState(name, "ready");
  await balancer.allUp();
  say(`${name}: restarted (pid ${fresh.child.pid}) on port ${port}, back in turn`);
}

function banner(values: { redis?: string; postgres?: string; sticky?: boolean }, replicas: Replica[], balancer: Balancer, redisUrl: string, stateUrl: string | undefined): string {
  const n = replicas.length;
  return [
    `Sandbox: ${n} replica${n > 1 ? "s" : ""} behind HAProxy (${values.sticky ? "one replica per API key" : "round-robin"}), rate limits shared in Redis`,
    `  API          ${balancer.url}`,
    ...replicas.map((r, i) => `  Replica ${`r${i + 1}`.padEnd(4)} ${r.url} (pid ${r.child.pid})`),
    `  Redis        ${values.redis ? "given" : `${redisUrl} (append-only)`}`,
    stateUrl
      ? `  PostgreSQL   ${values.postgres && values.postgres !== "here" ? "given" : stateUrl}: records, keys, webhooks shared by every replica`
      : "  State        each replica's own, in memory (--memory): pair with --sticky",
    `  Logs         JSON lines (pino) on this output, one per request; "replica" names the process`,
    `  Try          curl -i -H "X-API-Key: pk_test_demo_pro" ${balancer.url}/v1/analyses`,
    `  Restart one  npm run sandbox -- restart r2 --port ${balancer.port}`,
    "  Stop         Ctrl-C",
  ].join("\n");
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
