// `npm run sandbox`: a shared sandbox on one machine as it runs on many (docs/sandbox.md): a Redis, N gateway
// replicas sharing it, and HAProxy in front. Every flag after `--` goes to each replica (`--keys`, the caps...).
//
//   npm run sandbox -- --replicas 3 --port 8080 [--sticky] [--redis redis://host:6379/0] [--postgres URL|here] [-- replica flags]
//
// Without --redis it starts Debian's redis-server in a temporary folder; `--postgres here` starts Debian's PostgreSQL
// the same way, and every replica keeps its state there (--state postgres://…). Ctrl-C stops everything it started.
import { parseArgs } from "node:util";
import { freePort, startPostgres, startRedis, type Engine } from "../lib/engines.js";
import { startHaproxy, type Balancer } from "../lib/haproxy.js";
import { startReplica, type Replica } from "../lib/replicas.js";

const HELP = `npm run sandbox -- [--replicas N] [--port P] [--sticky] [--redis URL] [--postgres URL|here] [-- replica flags]

  --replicas N   gateway processes (default 2)
  --port P       where HAProxy listens, on 127.0.0.1 (default 8080; 0 picks a free one)
  --sticky       each API key to one replica, so a client reads back what it created (records are still
                 each replica's own; docs/sandbox.md)
  --redis URL    a Redis to share (default: start redis-server here)
  --postgres URL the state shared by every replica (--state URL); \`here\` starts Debian's PostgreSQL here.
                 Without it each replica keeps its own records (then --sticky)
  after --        flags every replica gets, as npm start takes them (--keys FILE, --max-connections N, ...)`;

async function main(): Promise<void> {
  const dash = process.argv.indexOf("--", 2);
  const own = dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash);
  const passed = dash < 0 ? [] : process.argv.slice(dash + 1);
  const { values } = parseArgs({ args: own, options: { replicas: { type: "string" }, port: { type: "string" }, redis: { type: "string" }, sticky: { type: "boolean" }, postgres: { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) return void console.log(HELP);
  const count = Number(values.replicas ?? 2);
  const port = Number(values.port ?? 8080);
  if (!Number.isInteger(count) || count < 1 || count > 32) throw new Error(`--replicas must be a whole number from 1 to 32; got "${values.replicas}".`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number; got "${values.port}".`);

  const started: Array<Replica | Engine | Balancer> = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    let redisUrl = values.redis;
    if (!redisUrl) {
      const redis = await startRedis();
      started.push(redis);
      redisUrl = redis.url;
    }
    let stateUrl = values.postgres;
    if (stateUrl === "here") {
      const pg = await startPostgres();
      started.push(pg);
      stateUrl = pg.url;
    }
    const shared = ["--redis", redisUrl, ...(stateUrl ? ["--state", stateUrl] : []), ...passed];
    const replicas: Replica[] = [];
    replicas.push(await startReplica(shared)); // makes the bundle the others reuse
    replicas.push(...(await Promise.all(Array.from({ length: count - 1 }, () => startReplica(shared)))));
    started.push(...replicas);
    const balancer = await startHaproxy(
      replicas.map((r) => new URL(r.url).host),
      port || (await freePort()),
      { sticky: values.sticky },
    );
    started.push(balancer);
    console.log(
      [
        `Sandbox: ${count} replica${count > 1 ? "s" : ""} behind HAProxy (${values.sticky ? "one replica per API key" : "round-robin"}), rate limits shared in Redis`,
        `  API          ${balancer.url}`,
        ...replicas.map((r, i) => `  Replica ${String(i + 1).padEnd(4)} ${r.url} (pid ${r.child.pid})`),
        `  Redis        ${values.redis ? "given" : redisUrl}`,
        ...(stateUrl ? [`  PostgreSQL   ${values.postgres === "here" ? stateUrl : "given"}: records, keys, webhooks shared by every replica`] : []),
        `  Try          curl -i -H "X-API-Key: pk_test_demo_pro" ${balancer.url}/v1/analyses`,
        "  Stop         Ctrl-C",
      ].join("\n"),
    );
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

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
