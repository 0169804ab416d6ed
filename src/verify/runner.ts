// `verify()`: checks a live implementation against the contract and returns the report, in stages:
//
//   setUp              options, target and credentials checked, the contract read (limits scaled), operations
//                      selected, the session, scheduler and report made
//   firstPass          every operation's cases (cases.ts), the anonymous ones within their budget (anonymous.ts),
//                      sent bucket by bucket around rate limits (schedule.ts), each exchange checked (checks/)
//   rulesOfTheContract malformed requests (malformed.ts), undeclared methods (methods.ts), Idempotency-Key requests, list walks (pages.ts), the
//                      lifecycle, revoked-key and reference cases (probes.ts), negative values per field
//   roundTrips         with --stateful, CRUD round trips (crud.ts) with tenancy (tenancy.ts)
//   foundTenancy       with --api-key-b, the resources found in lists (tenancy.ts)
//   finish             what was made for references deleted, each rate-limit bucket driven to its 429 (limits.ts),
//                      the report built (report.ts)
//
// Safe by default: only reads, and requests without credentials (refused before any effect), unless allowWrites.
import { loadContract, withLimitScale, type Contract } from "../mock/homes/node/contract-files.js";
import { CaseBuilder, type RequestCase } from "./requests/cases.js";
import { createChecks } from "./checks/index.js";
import { ContractView } from "./requests/contract-view.js";
import { idempotencyCases } from "./checks/idempotency-honoured.js";
import { filterProbes } from "./probes/filters.js";
import { crudGroups, firstFilled, roundtrip } from "./probes/crud.js";
import { listOperations, walkPages } from "./probes/pages.js";
import type { RoundtripContext } from "./probes/probe-context.js";
import { AnonymousBudget, byPriority, isAnonymous } from "./probes/anonymous.js";
import { MALFORMED_KINDS, malformedRequests, malformedTarget } from "./probes/malformed.js";
import { negativeValues } from "./probes/negatives.js";
import { boundaryInputs } from "./probes/inputs.js";
import type { HarRecorder } from "./session/har.js";
import { lifecycleSampling } from "./probes/sampling.js";
import { unsupportedMethods } from "./probes/methods.js";
import { DEFAULT_RATE_LIMIT_BUDGET, rateLimitProbes } from "./probes/limits.js";
import { Prerequisites } from "./probes/prerequisites.js";
import { foundTenancy } from "./probes/tenancy.js";
import { lifecycleProbes, lifecyclesOf, referenceProbes, revokedKeyProbe } from "./probes/probes.js";
import { ValueGenerator } from "./requests/generate.js";
import { DEFAULT_SEND_OPTIONS, type SendOptions } from "./session/http.js";
import { ReportBuilder, type Report } from "./report.js";
import { Scheduler, type Job } from "./session/schedule.js";
import { selectOperations } from "./select.js";
import { Parents } from "./probes/parents.js";
import type { Operation } from "./types.js";
import { realClock, Session, type Clock, type Credential } from "./session/session.js";
import { parseTarget, queryTokensAllowed, VerifyUsageError, type Target } from "./target.js";

export interface VerifyOptions {
  target: string;
  apiKey?: string;
  token?: string;
  /** A key of another workspace: the tenancy cases (tenancy.ts). */
  apiKeyB?: string;
  /** The contract (default: generated/). */
  contract?: Contract;
  /** Globs of operationIds or path templates, comma-separated (select.ts). */
  operations?: string;
  allowWrites?: boolean;
  /** CRUD round trips; needs allowWrites. */
  stateful?: boolean;
  /** Round trips, tenancy and probes may use operations outside --operations that the contract's links name. */
  followLinks?: boolean;
  /** Ids of resources a body may reference, by schema (`--ref UseCase=uc_…`): used instead of making one. */
  refs?: Record<string, string>;
  /** The target's limits are this many times the policy's (a mock started with --limit-scale N); default 1. */
  limitScale?: number;
  /** Requests without a workspace a run may send per rate-limit category (anonymous.ts); default: one window of the smallest plan's limit. */
  anonymousBudget?: number;
  /** Negative values per field (negatives.ts): cases sent at most (default 200); 0 sends none. */
  negativeBudget?: number;
  /** Boundary, unicode and control-byte requests (inputs.ts), shrinking included, sent at most (default 60); 0 sends none. */
  inputBudget?: number;
  /** Every exchange is added to this HTTP Archive (`--har`). */
  har?: HarRecorder;
  /** Generated requests per operation (default 2). */
  generated?: number;
  seed?: number;
  /** Requests per second at most (default 5); null: no pacing. */
  rps?: number | null;
  /** Requests in all at most (default 2000). */
  maxRequests?: number;
  /** Requests a run may spend driving each rate-limit bucket (category × with or without credentials) to its 429 (limits.ts); default 40, 0 sends none. */
  rateLimitBudget?: number;
  /** Seconds the run may spend waiting for rate limits in all (default 300). */
  maxWaitSeconds?: number;
  send?: Partial<SendOptions>;
  clock?: Clock;
  onExchange?: (line: string) => void;
  /** Only these cases (`operationId` and case label, as a report lists them): what --replay sends again. */
  only?: Array<{ operationId: string; case: string }>;
}

export const DEFAULTS = { generated: 2, rps: 5, maxRequests: 2000, maxWaitSeconds: 300, negativeBudget: 200, inputBudget: 60, rateLimitBudget: DEFAULT_RATE_LIMIT_BUDGET } as const;

/** What every stage of a run shares: the options, the contract's view, the session, the report, the selection. */
interface Run extends RoundtripContext {
  o: VerifyOptions;
  contract: Contract;
  target: Target;
  operations: Operation[];
  selected: Set<Operation>;
  budget: AnonymousBudget;
  /** The referenced resources made for bodies (deleted at the end). */
  made: Prerequisites;
  /** The DELETE cases of the first pass, sent after every probe and round trip (decision VG11). */
  deletes: Job[];
  started: number;
}

export async function verify(o: VerifyOptions): Promise<Report> {
  const run = setUp(o);
  await firstPass(run);
  await rulesOfTheContract(run);
  if (o.stateful) await roundTrips(run);
  await foundTenancy(run, run.operations);
  await run.scheduler.runAll(run.deletes);
  return finish(run);
}

/** Options checked, the contract read (its limits scaled), operations selected, the session and the report made. */
function setUp(o: VerifyOptions): Run {
  const started = Date.now();
  const target = parseTarget(o.target);
  if (o.stateful && !o.allowWrites) throw new VerifyUsageError("--stateful creates, updates and deletes resources: it needs --allow-writes");
  const contract = withLimitScale(o.contract ?? loadContract(), o.limitScale ?? 1);
  const view = ContractView.of(contract);
  const credential = credentialOf(o, view.apiKeyHeader);
  const only = o.only ? new Set(o.only.map((c) => `${c.operationId}\0${c.case}`)) : null;
  const operations = selectOperations(view.operations, o.operations);
  const checks = createChecks(view);
  const report = new ReportBuilder(checks, operations, view.operations);
  if (only) report.ran = new Set();
  report.tenancyNote = tenancyNote(o);
  const clock = o.clock ?? realClock;
  const builder = new CaseBuilder(view, new ValueGenerator(view, o.seed ?? 1));
  const session = new Session({
    view,
    target,
    credential,
    checks,
    report,
    clock,
    rps: o.rps === undefined ? DEFAULTS.rps : o.rps,
    maxRequests: o.maxRequests ?? DEFAULTS.maxRequests,
    send: { ...DEFAULT_SEND_OPTIONS, ...o.send },
    ...(o.onExchange ? { onExchange: o.onExchange } : {}),
    ...(o.har ? { har: o.har } : {}),
  });
  const scheduler = new Scheduler(clock, (o.maxWaitSeconds ?? DEFAULTS.maxWaitSeconds) * 1000);
  const bucket = (c: RequestCase) => (c.operation.public ? "public" : `${isAnonymous(c) ? "anonymous" : "caller"}:${c.operation.category.name}`);
  const selected = new Set(operations);
  const reach = (op: Operation) => o.followLinks === true || selected.has(op);
  const run: Run = { o, contract, target, operations, selected, started, view, builder, session, scheduler, bucket, allowWrites: o.allowWrites === true, report, reach, budget: new AnonymousBudget(contract.policy, o.anonymousBudget), deletes: [] as Job[] } as Run;
  if (only) run.only = (op: Operation, label: string) => only.has(`${op.operationId}\0${label}`);
  if (o.apiKeyB) run.tenantB = o.apiKeyB;
  run.prereqs = run.made = new Prerequisites(run, o.refs ?? {});
  run.parents = new Parents(run);
  if (!target.tls && !target.loopback) report.notices.push(`${target.base} is not TLS: credentials were sent in clear text, and the token-query checks were left out (spec §5 rule 7)`);
  return run;
}

/**
 * Every selected operation's cases (cases.ts), sent bucket by bucket around rate limits (schedule.ts). The cases
 * the service counts without a workspace draw on the anonymous budget (anonymous.ts) in its order; the malformed
 * requests and the revoked key, sent later, have their share set aside first.
 */
async function firstPass(run: Run): Promise<void> {
  const { o, operations, report, session, budget } = run;
  // A request the service cannot parse, and a revoked key, are counted in the default category (decision G26).
  const general = run.contract.policy.categories.find((c) => c.default) ?? operations[0]!.category;
  if (malformedTarget(operations)) budget.reserve(general, MALFORMED_KINDS.length);
  if (o.allowWrites) budget.reserve(general, 1);
  // A key is checked once, before any operation's own work: the unknown key is tried on the first operation of
  // each tag, not on all (each costs a request of the anonymous limit).
  const keyProbed = new Set(operations.filter((op, i) => operations.findIndex((x) => x.op.tags?.[0] === op.op.tags?.[0]) === i));
  const cases: RequestCase[] = [];
  for (const op of operations) {
    for (const c of await run.builder.build(op, o.generated ?? DEFAULTS.generated, o.allowWrites === true)) {
      if (run.only ? !run.only(op, c.label) : c.kind === "unknown-key" && !keyProbed.has(op)) continue;
      const why = refusal(c, o.allowWrites === true, queryTokensAllowed(run.target));
      if (why) report.skip(op, c.label, why);
      else cases.push(c);
    }
  }
  const jobs: Job[] = [];
  for (const c of [...cases.filter((c) => !isAnonymous(c)), ...byPriority(cases.filter(isAnonymous))]) {
    if (isAnonymous(c) && !budget.take(c.operation)) report.skip(c.operation, c.label, budget.reason(c.operation));
    // A DELETE goes after the probes and round trips that may need what it deletes (the example analysis a nested
    // list's filters are asked under): decision VG11.
    else (c.method === "DELETE" && c.safety === "write" ? run.deletes : jobs).push({ bucket: run.bucket(c), run: () => session.exchange(c), skip: (reason) => report.skip(c.operation, c.label, reason) });
  }
  await run.scheduler.runAll(jobs);
}

/** With --stateful, the CRUD round trip of every selected create (crud.ts); --replay sends only the named ones. */
async function roundTrips(run: Run): Promise<void> {
  const replayed = (name: string) => !run.o.only || run.o.only.some((c) => c.case.endsWith(` ${name}`));
  for (const g of crudGroups(run.view, run.view.operations).filter((g) => run.selected.has(g.create) && replayed(g.name))) {
    const stopped = await roundtrip(g, run);
    if (stopped) run.report.notices.push(`round trip of ${g.name} stopped early: ${stopped}`);
  }
}

/**
 * What was made to be referenced goes last, after every case that needed it; then each rate-limit bucket is driven
 * to its 429 (limits.ts: nothing the run needs is left to limit); then the report.
 */
async function finish(run: Run): Promise<Report> {
  const { o, report, contract } = run;
  await run.made.cleanUp();
  const budget = o.rateLimitBudget ?? DEFAULTS.rateLimitBudget;
  if (!run.only) report.rateLimits = await rateLimitProbes(run, contract.policy, run.operations, budget);
  report.waitedMs = run.scheduler.waitedMs;
  return report.build({
    target: run.target.base,
    contract: { title: String(contract.doc.info?.title ?? ""), version: String(contract.doc.info?.version ?? "") },
    started_at: new Date(run.started).toISOString(),
    duration_ms: Date.now() - run.started,
    options: { operations: o.operations ?? null, allow_writes: o.allowWrites === true, stateful: o.stateful === true, follow_links: o.followLinks === true, limit_scale: o.limitScale ?? 1, negative_budget: o.negativeBudget ?? DEFAULTS.negativeBudget, input_budget: o.inputBudget ?? DEFAULTS.inputBudget, rate_limit_budget: o.rateLimitBudget ?? DEFAULTS.rateLimitBudget, generated: o.generated ?? DEFAULTS.generated, seed: o.seed ?? 1 },
  });
}

/** The Idempotency-Key requests of each selected operation that takes the key, each sent after the previous (checks/idempotency-honoured.ts). */
async function probeIdempotency(operations: Operation[], ctx: RoundtripContext): Promise<void> {
  for (const op of operations) {
    const examples = ctx.builder.examples(op);
    const filled = examples.length && ctx.prereqs ? await firstFilled(ctx, op, examples) : null;
    if (filled && "reason" in filled) {
      if ((await idempotencyCases(ctx.view, ctx.builder, op)).length) ctx.report.skip(op, "Idempotency-Key", `a prerequisite is missing: ${filled.reason}`);
      continue;
    }
    for (const c of await idempotencyCases(ctx.view, ctx.builder, op, filled?.parts)) await ctx.scheduler.runOne({ bucket: ctx.bucket(c), run: () => ctx.session.exchange(c), skip: () => {} });
  }
}

/**
 * The cases made from the contract's rules: the malformed requests (malformed.ts), the methods no operation of a
 * path declares (methods.ts), the Idempotency-Key requests
 * (--allow-writes), every list's page walk, the lifecycle, revoked-key and reference cases (probes.ts) and the
 * negative values per field (negatives.ts).
 */
async function rulesOfTheContract(run: Run): Promise<void> {
  const { operations, report } = run;
  await malformedRequests(run, operations);
  await unsupportedMethods(run, operations);
  if (run.allowWrites) await probeIdempotency(operations, run);
  for (const op of listOperations(run, operations)) {
    const stopped = await walkPages(run, op);
    if (stopped) report.notices.push(`the page walk of ${op.operationId} stopped early: ${stopped}`);
  }
  await filterProbes(run, operations);
  await run.parents?.filterCases(operations);
  const machines = lifecyclesOf(run);
  await lifecycleProbes(run, operations, machines);
  if (run.allowWrites) {
    await lifecycleSampling(run, operations, machines);
    const stopped = await revokedKeyProbe(run, run.selected);
    if (stopped) report.notices.push(`the revoked-key case was not sent: ${stopped}`);
    await referenceProbes(run, operations, machines);
  }
  report.negatives = await negativeValues(run, operations, run.o.negativeBudget ?? DEFAULTS.negativeBudget);
  await boundaryInputs(run, operations, { budget: run.o.inputBudget ?? DEFAULTS.inputBudget, random: 1, seed: run.o.seed ?? 1 });
}

/** Why tenancy cannot be checked with these options, or null when it can. */
function tenancyNote(o: VerifyOptions): string | null {
  if (!o.apiKeyB) return "no key of a second workspace (--api-key-b KEY): whether one workspace can see another's resources was not tried";
  return null;
}

function credentialOf(o: VerifyOptions, apiKeyHeader: string): Credential {
  if (o.apiKey && o.token) throw new VerifyUsageError("give one of --api-key and --token, not both");
  if (o.apiKeyB && o.apiKeyB === (o.apiKey ?? o.token)) throw new VerifyUsageError("--api-key-b must be a key of another workspace, not the same key");
  if (o.apiKey) return { header: [apiKeyHeader, o.apiKey], secret: o.apiKey };
  if (o.token) return { header: ["Authorization", `Bearer ${o.token}`], secret: o.token };
  throw new VerifyUsageError("credentials are needed: --api-key KEY or --token JWT");
}

/** Why a case is not sent, or null when it may be. */
function refusal(c: RequestCase, allowWrites: boolean, tokensInUrls: boolean): string | null {
  if (c.safety === "write" && !allowWrites) return `${c.method} could change state: sent only with --allow-writes`;
  if (c.credentials === "token-query" && !tokensInUrls) return "a credential in a URL needs TLS or loopback (spec §5 rule 7)";
  return null;
}
