// Every setting `npm start` takes, in one declarative table: its flag, its environment variable, how its text is
// read, and its help line. scripts/mock/start.ts reads argv and the environment through it, once, before anything
// starts: a value that does not parse refuses the start and names the flag or variable (decision MC1). A new
// setting is one row here (and its use in start.ts); nothing else reads process.env.
import net from "node:net";
import { parseArgs } from "node:util";
import { parseLatency, type Latency } from "../../core/pipeline/latency.js";
import { parseUpstream } from "../../proxy/upstream.js";
import { LIMIT_ROWS } from "../../core/access/limits.js";

/** A setting whose text does not parse: the message names the flag or variable it came from. */
export class SettingsError extends Error {
  /** The command line itself is wrong (an unknown flag, a value missing): the help should follow. */
  usage = false;
}

export interface Setting<T = unknown> {
  /** The flag, without its dashes (`latency` for `--latency`); none for a setting taken only from the environment. */
  flag?: string;
  /** The environment variable. */
  env?: string;
  /** A flag that takes no value (`--quiet`); its variable then takes 1/true/0/false. */
  boolean?: boolean;
  /** Reads the text; throws SettingsError (any Error) whose message starts with the given name. */
  parse: (text: string, name: string) => T;
  default: T;
  help: string;
}

// The row builders: one per kind of value.
const text = (o: Omit<Setting<string | undefined>, "parse" | "default"> & { default?: string }): Setting<string | undefined> => ({
  ...o,
  default: o.default,
  parse: (t, name) => {
    if (t === "") throw new SettingsError(`${name} is empty: give a value, or leave it unset.`);
    return t;
  },
});
const flag = (o: Omit<Setting<boolean>, "parse" | "default" | "boolean">): Setting<boolean> => ({ ...o, boolean: true, default: false, parse: parseBoolean });
const integer = (o: Omit<Setting<number>, "parse"> & { min: number; max: number; unit?: string }): Setting<number> => ({
  ...o,
  parse: (t, name) => {
    const n = /^\s*\d+\s*$/.test(t) ? Number(t) : NaN;
    if (!Number.isSafeInteger(n) || n < o.min || n > o.max) {
      throw new SettingsError(`${name} must be a whole number${o.unit ? ` of ${o.unit}` : ""} from ${o.min} to ${o.max}; got "${t}".`);
    }
    return n;
  },
});

function parseBoolean(t: string, name: string): boolean {
  const v = t.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false" || v === "") return false;
  throw new SettingsError(`${name} takes 1 (or true) to turn it on, 0 (or false) to leave it off; got "${t}".`);
}

const DAY_MS = 86_400_000;

/** The table. Keys are the names start.ts reads the values by. */
export const SETTINGS = {
  port: integer({ flag: "port", env: "PORT", min: 0, max: 65535, default: 4010, help: "Port (0 picks a free one)" }),
  host: {
    flag: "host",
    env: "HOST",
    default: "127.0.0.1",
    help: "Address to listen on",
    parse: (t: string, name: string) => {
      if (net.isIP(t) || /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/.test(t)) return t;
      throw new SettingsError(`${name} must be an IP address or a host name such as 127.0.0.1, ::1 or localhost; got "${t}".`);
    },
  } satisfies Setting<string>,
  keysFile: text({ flag: "keys", env: "MOCK_KEYS_FILE", help: "JSON file of extra API keys" }),
  latency: {
    flag: "latency",
    env: "MOCK_LATENCY_MS",
    parse: (t: string, name: string) => parseLatency(t, name),
    default: null,
    help: "Delay every answer under /v1, /aria and /ws",
  } satisfies Setting<Latency | null>,
  stateFile: text({ flag: "state", env: "MOCK_STATE_FILE", help: "SQLite file keeping the state across restarts, or postgres://… shared by replicas" }),
  ownership: flag({ flag: "ownership", env: "MOCK_OWNERSHIP", help: "With --state postgres://: each workspace owned by one replica (a lease), the others forwarding to it" }),
  redis: {
    flag: "redis",
    env: "MOCK_REDIS_URL",
    parse: (t: string, name: string) => {
      if (/^rediss?:\/\/[^\s]+$/.test(t)) return t;
      throw new SettingsError(`${name} must be a redis:// URL such as redis://127.0.0.1:6379/0; got "${t}".`);
    },
    default: undefined,
    help: "Redis shared by replicas: rate-limit counters, event streams, the simulated clock, webhook deliveries once (docs/sandbox.md)",
  } satisfies Setting<string | undefined>,
  stateless: flag({ flag: "stateless", env: "MOCK_STATELESS", help: "Answer from the contract's examples only" }),
  allowLoopbackWebhooks: flag({ flag: "allow-loopback-webhooks", env: "MOCK_ALLOW_LOOPBACK_WEBHOOKS", help: "Accept and call webhook URLs on loopback" }),
  upstream: {
    flag: "upstream",
    env: "MOCK_UPSTREAM",
    parse: (t: string, name: string) => (parseUpstream(t, name), t),
    default: undefined,
    help: "Proxy mode: forward to this backend",
  } satisfies Setting<string | undefined>,
  fixtures: text({ flag: "fixtures", env: "MOCK_FIXTURES", help: "JSON or YAML file of records loaded into named workspaces" }),
  seed: text({ flag: "seed", env: "MOCK_SEED", help: "Mint ids and secrets from this seed, one stream per workspace: the same on every start (as createSimulation({ seed }))" }),
  limitScale: integer({ flag: "limit-scale", env: "MOCK_LIMIT_SCALE", min: 1, max: 10000, default: 1, help: "Multiply every plan's per-minute and daily limits (conformance runs; verify --limit-scale the same)" }),
  noGenerate: flag({ flag: "no-generate", env: "MOCK_NO_GENERATE", help: "Do not check generated/ against spec/" }),
  quiet: flag({ flag: "quiet", env: "MOCK_QUIET", help: "No request log lines" }),
  logFormat: {
    flag: "log-format",
    env: "MOCK_LOG_FORMAT",
    parse: (t: string, name: string) => {
      if (t !== "text" && t !== "json") throw new Error(`${name} must be text or json; got "${t}".`);
      return t;
    },
    default: "text",
    help: "Log lines as text, or as JSON objects (pino): each request with its method, path, operation, status, ms, workspace and X-Request-Id",
  } satisfies Setting<"text" | "json">,
  replica: text({ env: "MOCK_REPLICA", help: "This process's name in every JSON log entry (`replica`), so a sandbox's replicas can be told apart" }),
  stepMs: integer({ env: "MOCK_STEP_MS", min: 1, max: DAY_MS, unit: "milliseconds", default: 2000, help: "Time between two lifecycle steps of a stored resource" }),
  streamIntervalMs: integer({ env: "MOCK_STREAM_INTERVAL_MS", min: 0, max: 60_000, unit: "milliseconds", default: 400, help: "Pause between the messages of a live /v1/stream session" }),
  webhookDelayMs: integer({ env: "MOCK_WEBHOOK_DELAY_MS", min: 0, max: 3_600_000, unit: "milliseconds", default: 500, help: "Delay before a new webhook's sample deliveries" }),
  jwtSecret: text({ env: "MOCK_JWT_SECRET", help: "HS256 secret of bearer tokens" }),
  help: flag({ flag: "help", help: "This help" }),
} satisfies Record<string, Setting<any>>;

/**
 * The caps' flags (src/mock/core/access/limits.ts, docs/limits.md), one row each, read as text here and checked by
 * limitsFromFlags, which knows each cap's minimum.
 */
export const LIMIT_SETTINGS: Record<string, Setting<string | undefined>> = Object.fromEntries(
  LIMIT_ROWS.map((r) => [r.flag, text({ flag: r.flag, help: r.what })]),
);

/** The values of a table's settings. */
export type Values<T extends Record<string, Setting<any>>> = { [K in keyof T]: ReturnType<T[K]["parse"]> | T[K]["default"] };

/**
 * Reads every setting of `table` from `argv` (flags win) and `env`, validating each: the first that does not parse
 * throws SettingsError naming it, as does an unknown flag. An empty variable counts as unset.
 */
export function readSettings<T extends Record<string, Setting<any>>>(argv: string[], env: NodeJS.ProcessEnv, table: T = SETTINGS as unknown as T): Values<T> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const s of Object.values(table)) if (s.flag) options[s.flag] = { type: s.boolean ? "boolean" : "string", ...(s.flag === "help" ? { short: "h" } : {}) };
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    const error = new SettingsError((e as Error).message);
    error.usage = true;
    throw error;
  }
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(table)) {
    const given = s.flag ? flags[s.flag] : undefined;
    if (given === true) out[key] = true;
    else if (typeof given === "string") out[key] = s.parse(given, `--${s.flag}`);
    else if (s.env && env[s.env] !== undefined && env[s.env] !== "") out[key] = s.parse(env[s.env]!, s.env);
    else out[key] = s.default;
  }
  return out as Values<T>;
}

/** The environment-only rows, as help text lines. */
export function envOnlyHelp(table: Record<string, Setting<any>> = SETTINGS): string[] {
  return Object.values(table)
    .filter((s) => !s.flag && s.env)
    .map((s) => `  ${s.env!.padEnd(24)} ${s.help}${s.default !== undefined ? ` (default ${s.default})` : ""}`);
}
