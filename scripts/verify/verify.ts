// `npm run verify -- --target URL --api-key KEY`: checks a live implementation of the API against the contract
// (src/verify/). Prints a summary table; writes the JSON report, JUnit XML and an HTTP Archive (HAR) on request. Exit 0 without
// violations, 1 with any, 2 for a usage error (bad option, unreachable target, refused credentials).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { ContractLoadError, loadContract } from "../../src/mock/homes/node/contract-files.js";
import { DEFAULTS, junitXml, summaryTable, verify, VerifyUsageError, type Report } from "../../src/verify/index.js";
import { redactReport } from "../../src/verify/report.js";
import { HarRecorder } from "../../src/verify/session/har.js";
import { readReplay, replaySummary, verdicts, type ReplayPlan } from "../../src/verify/session/replay.js";

export const HELP = `npm run verify -- --target URL (--api-key KEY | --token JWT) [options]

Checks a running implementation of the API against the contract: every operation with the contract's examples,
generated valid requests and negative requests; every response against the declared statuses, media types,
schemas, headers and rate-limit policy.

  --target URL          Base URL of the service (https://…; http:// only on loopback for query tokens)
  --api-key KEY         API key, sent as X-API-Key (or env VERIFY_API_KEY)
  --token JWT           Bearer JWT, sent as Authorization: Bearer (or env VERIFY_TOKEN)
  --api-key-b KEY       A key of another workspace (or env VERIFY_API_KEY_B): with --stateful, every resource the
                        run creates is read, updated, deleted and listed with it, and must answer 404 / stay unlisted
  --operations GLOBS    Only these operations: comma-separated globs of operationIds or path templates,
                        e.g. "listAnalyses,/v1/speakers*,GET /v1/*"
  --allow-writes        Also send requests that could change state (POST, PUT, PATCH, DELETE with credentials)
  --stateful            Also run create → read → update → delete → read round trips (needs --allow-writes);
                        they stay within --operations (a step on another operation is skipped and said so)
  --follow-links        Round trips, tenancy and the revoked-key case may use operations outside --operations
                        that the contract's links and rules name (the read, update, delete, list of a create)
  --ref SCHEMA=ID       A resource a request body may reference (x-references), e.g. --ref UseCase=uc_…; repeat
                        for more. Without it, one is made with the contract's create of that schema (--allow-writes)
  --limit-scale N       The target's rate limits are N times the contract's (a mock started with --limit-scale N)
  --anonymous-budget N  Requests without a workspace (no credentials, ?token=, unknown keys) sent per rate-limit
                        category (default: one window of the smallest plan's limit, so the run never waits for it)
  --rate-limit-budget N Requests spent driving each rate-limit category's 429, with the credential and without
                        (default ${DEFAULTS.rateLimitBudget}; 0: none); a bucket further away is reported "not reached"
  --negative-budget N   Negative values per field (one per constraint of each field) sent at most
                        (default ${DEFAULTS.negativeBudget}; 0: none); those on writes need --allow-writes
  --report FILE.json    Write the JSON report
  --junit FILE.xml      Write JUnit XML (one test case per operation × check)
  --har FILE.har        Write every request and response of the run as an HTTP Archive (HAR 1.2), credentials
                        redacted
  --replay REPORT.json  Send again only the cases that showed violations in that report (its target and
                        options, unless given here), and say which are fixed; exit 0 when all are
  --input-budget N      Boundary, unicode and control-byte requests (a failure shrunk to a minimal request)
                        sent at most, shrinking included (default ${DEFAULTS.inputBudget}; 0: none)
  --generated N         Generated requests per operation (default ${DEFAULTS.generated})
  --seed N              Seed of the generated requests (default 1)
  --rps N               Requests per second at most (default ${DEFAULTS.rps})
  --max-requests N      Requests in all at most (default ${DEFAULTS.maxRequests})
  --max-wait SECONDS    Time the run may spend waiting for rate limits (Retry-After), in all (default ${DEFAULTS.maxWaitSeconds})
  --timeout SECONDS     Time for one response (default 30)
  --quiet               No progress lines
  -h, --help            This help

Exit status: 0 no violations (with --replay: all fixed), 1 violations found, 2 usage error.`;

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

const processIo: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), env: process.env };

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        target: { type: "string" },
        "api-key": { type: "string" },
        token: { type: "string" },
        "api-key-b": { type: "string" },
        operations: { type: "string" },
        "allow-writes": { type: "boolean" },
        stateful: { type: "boolean" },
        "follow-links": { type: "boolean" },
        "negative-budget": { type: "string" },
        "anonymous-budget": { type: "string" },
        "rate-limit-budget": { type: "string" },
        "limit-scale": { type: "string" },
        ref: { type: "string", multiple: true },
        report: { type: "string" },
        junit: { type: "string" },
        har: { type: "string" },
        "input-budget": { type: "string" },
        replay: { type: "string" },
        generated: { type: "string" },
        seed: { type: "string" },
        rps: { type: "string" },
        "max-requests": { type: "string" },
        "max-wait": { type: "string" },
        timeout: { type: "string" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  if (args.help) {
    io.out(HELP + "\n");
    return 0;
  }
  let report: Report;
  let plan: ReplayPlan | null = null;
  let har: HarRecorder | null = null;
  try {
    plan = args.replay ? readReplay(args.replay) : null;
    const earlier = plan?.report.options ?? {};
    const target = args.target ?? plan?.report.target;
    if (!target) throw new VerifyUsageError("--target URL is required");
    const apiKey = args["api-key"] ?? io.env.VERIFY_API_KEY;
    const token = args.token ?? io.env.VERIFY_TOKEN;
    const apiKeyB = args["api-key-b"] ?? io.env.VERIFY_API_KEY_B;
    let done = 0;
    if (args.har) har = new HarRecorder();
    report = await verify({
      ...(har ? { har } : {}),
      ...(args["input-budget"] !== undefined ? { inputBudget: count(args["input-budget"], "--input-budget", DEFAULTS.inputBudget, 0) } : {}),
      target,
      ...(plan ? { only: plan.only } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(token ? { token } : {}),
      ...(apiKeyB ? { apiKeyB } : {}),
      ...(args.operations !== undefined ? { operations: args.operations } : {}),
      allowWrites: args["allow-writes"] === true || earlier.allow_writes === true,
      stateful: args.stateful === true || earlier.stateful === true,
      followLinks: args["follow-links"] === true || earlier.follow_links === true,
      refs: refsOf(args.ref ?? []),
      limitScale: count(args["limit-scale"] ?? numeric(earlier.limit_scale), "--limit-scale", 1, 1),
      ...(args["anonymous-budget"] !== undefined ? { anonymousBudget: count(args["anonymous-budget"], "--anonymous-budget", 0, 0) } : {}),
      negativeBudget: count(args["negative-budget"] ?? numeric(earlier.negative_budget), "--negative-budget", DEFAULTS.negativeBudget, 0),
      rateLimitBudget: count(args["rate-limit-budget"] ?? numeric(earlier.rate_limit_budget), "--rate-limit-budget", DEFAULTS.rateLimitBudget, 0),
      contract: loadContract(),
      generated: count(args.generated ?? numeric(earlier.generated), "--generated", DEFAULTS.generated, 0),
      seed: count(args.seed ?? numeric(earlier.seed), "--seed", 1, 0),
      rps: positive(args.rps, "--rps", DEFAULTS.rps),
      maxRequests: count(args["max-requests"], "--max-requests", DEFAULTS.maxRequests, 1),
      maxWaitSeconds: positive(args["max-wait"], "--max-wait", DEFAULTS.maxWaitSeconds, true),
      send: { timeoutMs: positive(args.timeout, "--timeout", 30) * 1000 },
      onExchange: () => {
        if (!args.quiet && ++done % 50 === 0) io.err(`… ${done} requests\n`);
      },
    });
  } catch (e) {
    if (e instanceof VerifyUsageError || e instanceof ContractLoadError) return usage(io, e.message);
    throw e;
  }
  io.out(summaryTable(report) + "\n");
  const secrets = [args["api-key"], args["api-key-b"], args.token, io.env.VERIFY_API_KEY, io.env.VERIFY_API_KEY_B, io.env.VERIFY_TOKEN].filter((x): x is string => !!x);
  if (args.report) write(args.report, redactReport(JSON.stringify(report, null, 2) + "\n", secrets));
  if (args.junit) write(args.junit, redactReport(junitXml(report), secrets));
  if (har && args.har) write(args.har, redactReport(JSON.stringify(har.toJSON(), null, 2) + "\n", secrets));
  if (plan) {
    const list = verdicts(plan.report, report);
    io.out(replaySummary(list) + "\n");
    return list.every((x) => x.verdict === "fixed") ? 0 : 1;
  }
  return report.violations.length ? 1 : 0;
}

/** A number from an earlier report's options, as the command line would give it. */
function numeric(v: unknown): string | undefined {
  return typeof v === "number" ? String(v) : undefined;
}

function usage(io: Io, message: string): number {
  io.err(`verify: ${message}\nRun npm run verify -- --help for the options.\n`);
  return 2;
}

/** A report holds what a service answered: readable by its owner only (0600, an existing file made so too). */
function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/** `--ref UseCase=uc_1` → `{ UseCase: "uc_1" }`. */
function refsOf(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of raw) {
    const m = /^([A-Za-z][\w]*)=(\S+)$/.exec(r);
    if (!m) throw new VerifyUsageError(`--ref takes SCHEMA=ID (e.g. UseCase=uc_123), not ${JSON.stringify(r)}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

function count(raw: string | undefined, name: string, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new VerifyUsageError(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

function positive(raw: string | undefined, name: string, fallback: number, zeroOk = false): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n < 0 || (n === 0 && !zeroOk)) throw new VerifyUsageError(`${name} must be a number > 0, not ${JSON.stringify(raw)}`);
  return n;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: Error) => {
      process.stderr.write(`verify: internal error: ${e.stack ?? e.message}\n`);
      process.exitCode = 2;
    },
  );
}
