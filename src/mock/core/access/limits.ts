// Every cap the mock keeps on what one client, one workspace or the whole process may hold (issue 22, decisions
// SH*): one table, read by the gateway (its defaults), by `npm start` (one `--<flag> <n>` per row, validated here),
// and by docs/limits.md, which a test compares with this table so the page cannot drift from the code.
//
// A cap never deletes anything: over it, the request that would go beyond is answered, with an `error` code:
//   403 `limit_reached`      what one workspace may keep or hold open (records, keys, webhooks, its streams)
//   503 `capacity_exceeded`  what the process can hold for everyone (workspaces, connections, an address's
//                            streams, lifecycle timers, proxy exchanges), with `Retry-After`
//   400                      what one request may carry (form fields, JSON members)
// A few rows bound work instead of refusing it (the idle stream time-out, the dynamic generator's sizes, the bytes
// the proxy keeps to judge an exchange).

export type LimitName =
  | "workspaces"
  | "records"
  | "keys"
  | "webhooks"
  | "streamsPerWorkspace"
  | "streamsPerAddress"
  | "connections"
  | "addressShare"
  | "connectionIdleMs"
  | "streamIdleMs"
  | "lifecycleTimers"
  | "proxyExchanges"
  | "proxyKeptBytes"
  | "formFields"
  | "jsonMembers"
  | "dynamicItems"
  | "dynamicLength";

export type Limits = Record<LimitName, number>;

export interface LimitRow {
  name: LimitName;
  /** The `npm start` flag, without its dashes. */
  flag: string;
  default: number;
  /** Smallest value the flag accepts. */
  min: number;
  /** What is capped, for the docs and `--help`. */
  what: string;
  /** What a request beyond the cap gets. */
  answer: string;
}

export const LIMIT_ROWS: readonly LimitRow[] = [
  { name: "workspaces", flag: "max-workspaces", default: 1000, min: 1, what: "workspaces the mock remembers (a token may name any workspace; each is seeded on first use)", answer: "503 `capacity_exceeded` for a new workspace (with `--state`, the least recently used idle one leaves memory instead, read back when next used); none is ever forgotten" },
  { name: "records", flag: "max-records", default: 10_000, min: 1, what: "records of one collection in one workspace (boards, analyses, …; the seed counts)", answer: "403 `limit_reached` on the create" },
  { name: "keys", flag: "max-keys", default: 100, min: 1, what: "API keys of one workspace, revoked ones included", answer: "403 `limit_reached` on the create" },
  { name: "webhooks", flag: "max-webhooks", default: 20, min: 1, what: "webhooks of one workspace (the contract's createWebhook says 20)", answer: "409, as the contract says" },
  { name: "streamsPerWorkspace", flag: "max-streams-per-workspace", default: 100, min: 1, what: "open event streams and WebSocket sessions of one workspace", answer: "403 `limit_reached`" },
  { name: "streamsPerAddress", flag: "max-streams-per-address", default: 200, min: 1, what: "open event streams and WebSocket sessions from one client address", answer: "503 `capacity_exceeded`" },
  { name: "connections", flag: "max-connections", default: 4000, min: 1, what: "open TCP connections, all clients together", answer: "503 `capacity_exceeded`, then the connection closes" },
  { name: "addressShare", flag: "address-connection-share", default: 50, min: 1, what: "share of `--max-connections` one client address may hold open, percent", answer: "503 `capacity_exceeded`, then the connection closes; other addresses and `/health` from them are still served" },
  { name: "connectionIdleMs", flag: "connection-idle-ms", default: 60_000, min: 100, what: "time a connection may stay open before its first request, ms (between requests: node's keep-alive, 5 s, or this if shorter)", answer: "the connection closes" },
  { name: "streamIdleMs", flag: "stream-idle-ms", default: 300_000, min: 1000, what: "time an event stream or WebSocket session may stay open without sending an event (a resting analysis), ms", answer: "the stream ends (WebSocket: close 1001)" },
  { name: "lifecycleTimers", flag: "max-lifecycle-timers", default: 100_000, min: 1, what: "pending lifecycle steps (resources still moving by themselves), all workspaces together", answer: "503 `capacity_exceeded` on the create" },
  { name: "proxyExchanges", flag: "max-proxy-exchanges", default: 64, min: 1, what: "proxy mode: exchanges forwarded at the same time", answer: "503 `capacity_exceeded`, not forwarded" },
  { name: "proxyKeptBytes", flag: "proxy-kept-bytes", default: 8 * 1024 * 1024, min: 1024, what: "proxy mode: bytes of each request and response body kept to judge the exchange (above the contract's largest JSON request, 7 MiB)", answer: "a larger body crosses whole, and is not judged" },
  { name: "formFields", flag: "max-form-fields", default: 1000, min: 1, what: "fields of one urlencoded or multipart body", answer: "400, counted before the form is parsed" },
  { name: "jsonMembers", flag: "max-json-members", default: 10_000, min: 1, what: "object members (properties), all levels together, of one JSON body", answer: "400, counted before the body is parsed" },
  { name: "dynamicItems", flag: "dynamic-max-items", default: 5, min: 0, what: "`Prefer: dynamic=true`: items of each generated array (below the schema's own `maxItems`)", answer: "a smaller generated value" },
  { name: "dynamicLength", flag: "dynamic-max-length", default: 200, min: 0, what: "`Prefer: dynamic=true`: characters of each generated string (below the schema's own `maxLength`)", answer: "a smaller generated value" },
];

export const DEFAULT_LIMITS: Limits = Object.fromEntries(LIMIT_ROWS.map((r) => [r.name, r.default])) as Limits;

/** A limit given a value it cannot take: names the flag. */
export class LimitError extends Error {}

/** The limits with `given` over the defaults; a value that is not a whole number ≥ the row's `min` throws naming it. */
export function resolveLimits(given: Partial<Limits> = {}): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const row of LIMIT_ROWS) {
    const v = given[row.name];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < row.min) throw new LimitError(`--${row.flag} must be a whole number of at least ${row.min}, not ${String(v)}.`);
    out[row.name] = v;
  }
  return out;
}

/** The `parseArgs` options of every limit flag (`npm start`). */
export function limitFlagOptions(): Record<string, { type: "string" }> {
  return Object.fromEntries(LIMIT_ROWS.map((r) => [r.flag, { type: "string" as const }]));
}

/** The limits `npm start` was given, from its parsed flags; a bad value throws LimitError naming the flag. */
export function limitsFromFlags(values: Record<string, unknown>): Limits {
  const given: Partial<Limits> = {};
  for (const row of LIMIT_ROWS) {
    const text = values[row.flag];
    if (typeof text !== "string") continue;
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)) || Number(text) < row.min) throw new LimitError(`--${row.flag} must be a whole number of at least ${row.min}, not "${text}".`);
    given[row.name] = Number(text);
  }
  return resolveLimits(given);
}

/** The `--help` lines of the limit flags. */
export function limitsHelp(): string {
  return LIMIT_ROWS.map((r) => `  --${r.flag.padEnd(26)} ${r.what} (default ${r.default})`).join("\n");
}

/** The body of a 403 or 503 a cap answers. */
export function limitBody(kind: "limit_reached" | "capacity_exceeded", detail: string): { detail: string; error: string } {
  return { detail, error: kind };
}

/** Thrown where a cap is met deep in a responder; the responders turn it into its answer (`capAnswer`). */
export class CapReached extends Error {
  constructor(
    readonly kind: "limit_reached" | "capacity_exceeded",
    detail: string,
  ) {
    super(detail);
  }
  get status(): number {
    return this.kind === "limit_reached" ? 403 : 503;
  }
}

/** Seconds a 503 `capacity_exceeded` asks the client to wait. */
export const CAPACITY_RETRY_AFTER_SECONDS = 5;
