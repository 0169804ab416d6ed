// `verify()`: checks a live implementation against the contract and returns the report.
//
//   options ─► target and credentials checked ─► operations selected ─► cases built (cases.ts)
//           ─► sent bucket by bucket around rate limits (schedule.ts), each exchange checked (session.ts, checks/)
//           ─► with --allow-writes, the Idempotency-Key requests (checks/idempotency-honoured.ts)
//           ─► list walks (pages.ts) ─► negative cases from the contract's rules (probes.ts)
//           ─► with --stateful, CRUD round trips (crud.ts) ─► report (report.ts)
//
// Safe by default: only reads, and requests without credentials (refused before any effect), unless allowWrites.
import { loadContract, withLimitScale, type Contract } from "../mock/contract.js";
import { CaseBuilder, type RequestCase } from "./cases.js";
import { createChecks } from "./checks/index.js";
import { ContractView } from "./contract-view.js";
import { idempotencyCases } from "./checks/idempotency-honoured.js";
import { crudGroups, roundtrip } from "./crud.js";
import { listOperations, walkPages } from "./pages.js";
import type { RoundtripContext } from "./probe-context.js";
import { negativeValues } from "./negatives.js";
import { Prerequisites } from "./prerequisites.js";
import { lifecycleProbes, lifecyclesOf, referenceProbes, revokedKeyProbe } from "./probes.js";
import { ValueGenerator } from "./generate.js";
import { DEFAULT_SEND_OPTIONS, type SendOptions } from "./http.js";
import { ReportBuilder, type Report } from "./report.js";
import { Scheduler, type Job } from "./schedule.js";
import { selectOperations } from "./select.js";
import { Parents } from "./parents.js";
import type { Operation } from "./types.js";
import { realClock, Session, type Clock, type Credential } from "./session.js";
import { parseTarget, queryTokensAllowed, VerifyUsageError } from "./target.js";

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
  /** Negative values per field (negatives.ts): cases sent at most (default 200); 0 sends none. */
  negativeBudget?: number;
  /** Generated requests per operation (default 2). */
  generated?: number;
  seed?: number;
  /** Requests per second at most (default 5); null: no pacing. */
  rps?: number | null;
  /** Requests in all at most (default 2000). */
  maxRequests?: number;
  /** Seconds the run may spend waiting for rate limits in all (default 300). */
  maxWaitSeconds?: number;
  send?: Partial<SendOptions>;
  clock?: Clock;
  onExchange?: (line: string) => void;
  /** Only these cases (`operationId` and case label, as a report lists them): what --replay sends again. */
  only?: Array<{ operationId: string; case: string }>;
}

export const DEFAULTS = { generated: 2, rps: 5, maxRequests: 2000, maxWaitSeconds: 300, negativeBudget: 200 } as const;

export async function verify(o: VerifyOptions): Promise<Report> {
  const started = Date.now();
  const target = parseTarget(o.target);
  if (o.stateful && !o.allowWrites) throw new VerifyUsageError("--stateful creates, updates and deletes resources: it needs --allow-writes");
  const contract = withLimitScale(o.contract ?? loadContract(), o.limitScale ?? 1);
  const view = ContractView.of(contract);
  const credential = credentialOf(o, view.apiKeyHeader);
  const only = o.only ? new Set(o.only.map((c) => `${c.operationId}\0${c.case}`)) : null;
  const wanted = only ? (op: Operation, label: string) => only.has(`${op.operationId}\0${label}`) : undefined;
  const operations = selectOperations(view.operations, o.operations);
  const checks = createChecks(view);
  const report = new ReportBuilder(checks, operations, view.operations);
  if (only) report.ran = new Set();
  const clock = o.clock ?? realClock;
  const seed = o.seed ?? 1;
  const builder = new CaseBuilder(view, new ValueGenerator(view, seed));
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
  });
  const scheduler = new Scheduler(clock, (o.maxWaitSeconds ?? DEFAULTS.maxWaitSeconds) * 1000);
  const bucket = (c: RequestCase) => (c.operation.public ? "public" : `${c.credentials === "header" ? "caller" : "anonymous"}:${c.operation.category.name}`);

  // A key is checked once, before any operation's own work: the unknown key is tried on the first operation of
  // each tag, not on all (each costs a request of the anonymous limit, 30 a minute on the mock).
  const keyProbed = new Set(operations.filter((op, i) => operations.findIndex((x) => x.op.tags?.[0] === op.op.tags?.[0]) === i));
  const jobs: Job[] = [];
  // A DELETE goes after the probes and round trips that may need what it deletes (the example analysis a nested
  // list's filters are asked under): decision VG11.
  const deletes: Job[] = [];
  for (const op of operations) {
    for (const c of await builder.build(op, o.generated ?? DEFAULTS.generated, o.allowWrites === true)) {
      if (wanted ? !wanted(op, c.label) : c.kind === "unknown-key" && !keyProbed.has(op)) continue;
      const why = refusal(c, o.allowWrites === true, queryTokensAllowed(target));
      if (why) report.skip(op, c.label, why);
      else (c.method === "DELETE" && c.safety === "write" ? deletes : jobs).push({ bucket: bucket(c), run: () => session.exchange(c), skip: (reason) => report.skip(op, c.label, reason) });
    }
  }
  if (!target.tls && !target.loopback) report.notices.push(`${target.base} is not TLS: credentials were sent in clear text, and the token-query checks were left out (spec §5 rule 7)`);
  await scheduler.runAll(jobs);

  const selected = new Set(operations);
  const reach = (op: Operation) => o.followLinks === true || selected.has(op);
  const ctx: RoundtripContext = { view, builder, session, scheduler, bucket, allowWrites: o.allowWrites === true, report, reach, ...(wanted ? { only: wanted } : {}), ...(o.apiKeyB ? { tenantB: o.apiKeyB } : {}) };
  const prereqs = new Prerequisites(ctx, o.refs ?? {});
  ctx.prereqs = prereqs;
  ctx.parents = new Parents(ctx);
  report.tenancyNote = tenancyNote(o);
  if (o.allowWrites) await probeIdempotency(operations, ctx);
  await rulesOfTheContract(ctx, operations);
  report.negatives = await negativeValues(ctx, operations, o.negativeBudget ?? DEFAULTS.negativeBudget);
  if (o.stateful) {
    const replayed = (name: string) => !o.only || o.only.some((c) => c.case.endsWith(` ${name}`));
    for (const g of crudGroups(view, view.operations).filter((g) => selected.has(g.create) && replayed(g.name))) {
      const stopped = await roundtrip(g, ctx);
      if (stopped) report.notices.push(`round trip of ${g.name} stopped early: ${stopped}`);
    }
  }
  await scheduler.runAll(deletes);
  // What was made to be referenced goes last, after every case that needed it.
  await prereqs.cleanUp();
  report.waitedMs = scheduler.waitedMs;
  return report.build({
    target: target.base,
    contract: { title: String(contract.doc.info?.title ?? ""), version: String(contract.doc.info?.version ?? "") },
    started_at: new Date(started).toISOString(),
    duration_ms: Date.now() - started,
    options: { operations: o.operations ?? null, allow_writes: o.allowWrites === true, stateful: o.stateful === true, follow_links: o.followLinks === true, limit_scale: o.limitScale ?? 1, negative_budget: o.negativeBudget ?? DEFAULTS.negativeBudget, generated: o.generated ?? DEFAULTS.generated, seed },
  });
}

/** The Idempotency-Key requests of each selected operation that takes the key, each sent after the previous (checks/idempotency-honoured.ts). */
async function probeIdempotency(operations: Operation[], ctx: RoundtripContext): Promise<void> {
  for (const op of operations) {
    const example = ctx.builder.examples(op)[0];
    const filled = example && ctx.prereqs ? await ctx.prereqs.fill(op, example) : null;
    if (filled && "reason" in filled) {
      if ((await idempotencyCases(ctx.view, ctx.builder, op)).length) ctx.report.skip(op, "Idempotency-Key", `a prerequisite is missing: ${filled.reason}`);
      continue;
    }
    for (const c of await idempotencyCases(ctx.view, ctx.builder, op, filled?.parts)) await ctx.scheduler.runOne({ bucket: ctx.bucket(c), run: () => ctx.session.exchange(c), skip: () => {} });
  }
}

/** Page walks of every list, then the negative cases made from the contract's rules (credentials, references, lifecycles). */
async function rulesOfTheContract(ctx: RoundtripContext, operations: Operation[]): Promise<void> {
  for (const op of listOperations(ctx, operations)) {
    const stopped = await walkPages(ctx, op);
    if (stopped) ctx.report.notices.push(`the page walk of ${op.operationId} stopped early: ${stopped}`);
  }
  await ctx.parents?.filterCases(operations);
  const machines = lifecyclesOf(ctx);
  await lifecycleProbes(ctx, operations, machines);
  if (!ctx.allowWrites) return;
  const stopped = await revokedKeyProbe(ctx, new Set(operations));
  if (stopped) ctx.report.notices.push(`the revoked-key case was not sent: ${stopped}`);
  await referenceProbes(ctx, operations, machines);
}

/** Why tenancy cannot be checked with these options, or null when it can. */
function tenancyNote(o: VerifyOptions): string | null {
  if (!o.apiKeyB) return "no key of a second workspace (--api-key-b KEY): whether one workspace can see another's resources was not tried";
  if (!o.stateful) return "the second key is tried on the resources the run creates: give --allow-writes --stateful";
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
