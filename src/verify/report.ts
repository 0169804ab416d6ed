// The verifier's findings: built up exchange by exchange, then written as JSON (the report), a terminal table, or
// JUnit XML (one test case per operation × check, a failure per violated check) for CI. The XML is written with
// fast-xml-parser's builder, which escapes text and attributes.
import { XMLBuilder } from "fast-xml-parser";
import { groupViolations, type ViolationGroup } from "./grouping.js";
import { answeredByGateway } from "./select.js";
import type { Check, Operation, Reproduction, Violation } from "./types.js";
import type { CheckResult } from "./checks/index.js";
import type { NegativeResult } from "./requests/negative-verdict.js";

export interface RuleTally {
  run: number;
  violations: number;
}

export interface OperationReport {
  operationId: string;
  method: string;
  path: string;
  requests: number;
  checks: Record<string, RuleTally>;
  /** Cases not sent, with why (writes not allowed, rate limited beyond the wait budget, …). */
  skipped: Array<{ case: string; reason: string }>;
}

export interface Report {
  target: string;
  contract: { title: string; version: string };
  started_at: string;
  duration_ms: number;
  options: Record<string, unknown>;
  requests: number;
  /** Time spent waiting for rate limits (Retry-After), ms. */
  waited_ms: number;
  operations: OperationReport[];
  checks: Array<{ rule: string; description: string } & RuleTally>;
  violations: Violation[];
  /** The violations by cause (groupViolations): one per operation, rule and schema path; `first` indexes `violations`. */
  groups: Array<Omit<ViolationGroup, "first"> & { first: number }>;
  /**
   * Whether another workspace's key was tried on the run's resources (--api-key-b), and on which kinds
   * (collection templates); when not, why.
   */
  tenancy: { checked: boolean; resources: string[]; note: string | null };
  /**
   * Every operation of the contract in one category (decision Y36): `checked` (answered, judged), `not-selected`
   * (left out by --operations), `not-implemented` (every authenticated call answered 405 or 501, or 404 where a
   * resource the run made exists or with a body that is not the contract's error: the route is unknown; its
   * violations are not counted), `skipped` (nothing sent; the reasons, e.g. a prerequisite missing).
   */
  coverage: CoverageRow[];
  /** The negative values per field (negatives.ts): one per field and constraint, with the status answered. */
  negatives: NegativeResult[];
  /** Each rate-limit category's 429, with the run's credential and without: reached, or not and why (decision Y53). */
  rate_limits: RateLimitRow[];
  /** With --replay: the (operation, case, rule, request shape) judged, each once (replay.ts runKey). */
  ran?: string[];
  /** Things the run could not do or had to tell (credentials in a URL refused, budgets used up, …). */
  notices: string[];
}

/** One rate-limit bucket's 429, driven to on purpose (probes/limits.ts, decision Y53). */
export interface RateLimitRow {
  category: string;
  /** `caller`: with the run's credential; `anonymous`: without credentials. */
  bucket: "caller" | "anonymous";
  reached: boolean;
  /** Requests the probe sent to the bucket. */
  requests: number;
  /** Why it was not reached; null when it was. */
  reason: string | null;
}

export type CoverageCategory = "checked" | "not-selected" | "not-implemented" | "skipped" | "out-of-scope";

function declares404(op: Operation): boolean {
  return Object.keys(op.op.responses ?? {}).some((code) => code === "404" || code === "4XX");
}

/** The id-free path an item path sits under (`/v1/speakers/{speaker_id}` → `/v1/speakers`), or null. */
function collectionOf(template: string): string | null {
  const at = template.indexOf("/{");
  return at > 0 ? template.slice(0, at) : null;
}

export interface CoverageRow {
  operationId: string;
  method: string;
  path: string;
  category: CoverageCategory;
  /** Why it is not `checked` (the statuses answered, the skip reasons); null when checked. */
  reason: string | null;
}

/** What an operation answered to the authenticated requests it was sent (for `not-implemented`). */
interface Answers {
  statuses: Set<number>;
  /** A 404 to a step on a resource the run made (a round trip's read, update or delete before the delete). */
  missingMade: boolean;
  /** A 404 whose body is not the contract's error (no `detail` string): a route the server does not know. */
  foreign404: boolean;
  /** A 404 with the contract's error body. */
  contract404: boolean;
}

export class ReportBuilder {
  private readonly ops = new Map<string, OperationReport>();
  private readonly violations = new Map<string, Violation>();
  readonly notices: string[] = [];
  /** The resource kinds (collection templates) asked for with the second key. */
  readonly tenancyResources = new Set<string>();
  private readonly answers = new Map<string, Answers>();
  negatives: NegativeResult[] = [];
  rateLimits: RateLimitRow[] = [];
  /** Set for a replay run: what was judged (replay.ts runKey). */
  ran: Set<string> | null = null;
  /** Why tenancy was not checked (no second key), or null. */
  tenancyNote: string | null = null;
  requests = 0;
  waitedMs = 0;

  constructor(
    private readonly checks: Check[],
    operations: Operation[],
    /** Every operation of the contract, for the coverage table (the selected ones when absent). */
    private readonly all: Operation[] = operations,
  ) {
    for (const op of operations) this.op(op);
  }

  /** An authenticated answer of `op` (not-implemented is judged from these); `made`: about a resource the run made. */
  answered(op: Operation, status: number, body: Uint8Array, made: boolean): void {
    let a = this.answers.get(op.operationId);
    if (!a) this.answers.set(op.operationId, (a = { statuses: new Set(), missingMade: false, foreign404: false, contract404: false }));
    a.statuses.add(status);
    if (status !== 404) return;
    if (made) a.missingMade = true;
    let detail: unknown;
    try {
      detail = (JSON.parse(Buffer.from(body).toString("utf8")) as { detail?: unknown })?.detail;
    } catch {
      detail = undefined;
    }
    if (typeof detail === "string") a.contract404 = true;
    else a.foreign404 = true;
  }

  /** Why `op` counts as not implemented, or null (the rules: decision Y36, issue 46). */
  private notImplemented(id: string): string | null {
    const a = this.answers.get(id);
    if (!a || !a.statuses.size || [...a.statuses].some((s) => ![404, 405, 501].includes(s))) return null;
    const statuses = [...a.statuses].sort().join("/");
    if (a.statuses.has(405) || a.statuses.has(501)) return `every authenticated call answered ${statuses}`;
    if (a.missingMade) return `answered 404 for a resource the run had just made (every authenticated call answered ${statuses})`;
    const route = this.all.find((o) => o.operationId === id);
    if (route && !route.template.includes("{") && !declares404(route)) return `every authenticated call answered 404, which ${route.template} never declares (whatever the body): the route is unknown`;
    const collection = route ? collectionOf(route.template) : null;
    const missing = collection ? this.all.find((o) => o.template === collection && this.notImplemented(o.operationId)) : undefined;
    if (missing) return `every authenticated call answered 404, and ${collection} is not implemented (${missing.operationId})`;
    if (a.foreign404 && !a.contract404) return "every authenticated call answered 404 without the contract's error body: the route is unknown";
    return null;
  }

  private coverage(operations: OperationReport[]): CoverageRow[] {
    return this.all.map((op) => {
      const row = { operationId: op.operationId, method: op.method.toUpperCase(), path: op.template };
      const r = operations.find((o) => o.operationId === op.operationId);
      if (!r && answeredByGateway(op)) return { ...row, category: "out-of-scope", reason: "answered by the gateway itself (x-answered-by: gateway), not the backend: name it in --operations to check it" };
      if (!r) return { ...row, category: "not-selected", reason: "left out by --operations" };
      const missing = this.notImplemented(r.operationId);
      if (missing) return { ...row, category: "not-implemented", reason: missing };
      const skipped = [...new Set(r.skipped.map((s) => s.reason))].join("; ");
      if (r.requests === 0) return { ...row, category: "skipped", reason: skipped || "no case could be made" };
      // Answered only without credentials (a 401 before any work): nothing of the operation itself was judged.
      if (!this.answers.has(r.operationId)) return { ...row, category: "skipped", reason: ["only requests without credentials were answered", skipped].filter(Boolean).join("; ") };
      return { ...row, category: "checked", reason: null };
    });
  }

  private op(op: Operation): OperationReport {
    let r = this.ops.get(op.operationId);
    if (!r) this.ops.set(op.operationId, (r = { operationId: op.operationId, method: op.method.toUpperCase(), path: op.template, requests: 0, checks: {}, skipped: [] }));
    return r;
  }

  /**
   * The results of the checks on one exchange. `request` is already redacted; `at.reproduce` makes a violation's
   * reproduction (called once per distinct violation, for the first exchange that shows it).
   */
  record(op: Operation, request: string, status: number, results: CheckResult[], at: { case: string; reproduce?: (rule: string) => Reproduction }): void {
    const r = this.op(op);
    r.requests++;
    for (const { rule, violations } of results) {
      const t = (r.checks[rule] ??= { run: 0, violations: 0 });
      t.run++;
      if (violations.length) t.violations++;
      for (const message of violations) {
        const key = JSON.stringify([op.operationId, rule, status, message]);
        const v = this.violations.get(key);
        if (v) {
          v.count++;
          if (!v.cases.includes(at.case)) v.cases.push(at.case);
        } else {
          const base: Violation = { operationId: op.operationId, method: op.method.toUpperCase(), path: op.template, status, rule, message, request, count: 1, cases: [at.case] };
          this.violations.set(key, at.reproduce ? { ...base, reproduction: at.reproduce(rule) } : base);
        }
      }
    }
  }

  /** A resource kind (its collection template) whose resource was asked for with the second key. */
  tenancyChecked(kind: string): void {
    this.tenancyResources.add(kind);
  }

  skip(op: Operation, label: string, reason: string): void {
    this.op(op).skipped.push({ case: label, reason });
  }

  build(meta: Pick<Report, "target" | "contract" | "started_at" | "duration_ms" | "options">): Report {
    const coverage = this.coverage([...this.ops.values()]);
    // An operation the server does not implement is its own finding, not a violation (nor a pass): its tallies
    // count no violation, as its violations are in no list.
    const missing = new Set(coverage.filter((c) => c.category === "not-implemented").map((c) => c.operationId));
    const operations = [...this.ops.values()].map((o) => (missing.has(o.operationId) ? { ...o, checks: Object.fromEntries(Object.entries(o.checks).map(([k, t]) => [k, { ...t, violations: 0 }])) } : o));
    const checks = this.checks.map((c) => {
      const run = operations.reduce((n, o) => n + (o.checks[c.name]?.run ?? 0), 0);
      const violations = operations.reduce((n, o) => n + (o.checks[c.name]?.violations ?? 0), 0);
      return { rule: c.name, description: c.description, run, violations };
    });
    const resources = [...this.tenancyResources];
    const tenancy = { checked: resources.length > 0, resources, note: resources.length ? null : (this.tenancyNote ?? "no resource was created or found to try the second key on") };
    const violations = [...this.violations.values()].filter((v) => !missing.has(v.operationId));
    const groups = groupViolations(violations).map((g) => ({ ...g, first: violations.indexOf(g.first) }));
    return { ...meta, requests: this.requests, waited_ms: Math.round(this.waitedMs), tenancy, coverage, negatives: this.negatives, rate_limits: this.rateLimits, operations, checks, violations, groups, notices: this.notices, ...(this.ran ? { ran: [...this.ran] } : {}) };
  }
}

export { groupViolations, type ViolationGroup } from "./grouping.js";

/** The terminal summary: one line per operation (checks run, violations), then the violations and notices. */
export function summaryTable(report: Report): string {
  const rows = report.operations.filter((o) => o.requests > 0 || o.skipped.length);
  const runs = (o: OperationReport) => Object.values(o.checks).reduce((n, t) => n + t.run, 0);
  // The distinct violations the list below shows for the operation (a not-implemented one has none).
  const bad = (o: OperationReport) => report.violations.filter((v) => v.operationId === o.operationId).length;
  const category = (o: OperationReport) => report.coverage.find((c) => c.operationId === o.operationId)?.category ?? "checked";
  const head = ["operation", "method", "path", "coverage", "requests", "checks", "violations", "skipped"];
  const body = rows.map((o) => [o.operationId, o.method, o.path, category(o), String(o.requests), String(runs(o)), String(bad(o)), String(o.skipped.length)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  const tenancy = report.tenancy.checked ? `tenancy: checked with a second workspace's key on ${report.tenancy.resources.join(", ")}` : `! tenancy NOT checked: ${report.tenancy.note}`;
  const out = [tenancy, "", line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  out.push("", `${report.requests} requests, ${report.checks.reduce((n, c) => n + c.run, 0)} checks, ${report.violations.length} distinct violation(s) of ${groupViolations(report.violations).length} cause(s) in ${(report.duration_ms / 1000).toFixed(1)} s (${(report.waited_ms / 1000).toFixed(1)} s waiting for rate limits).`);
  out.push(...coverageLines(report), ...rateLimitLines(report), ...negativeLines(report));
  out.push(...violationsByOperation(report));
  for (const n of report.notices) out.push(`  ! ${n}`);
  return out.join("\n");
}

/** The coverage by category, and each operation not implemented or skipped with its reason. */
function coverageLines(report: Report): string[] {
  const count = (c: CoverageCategory) => report.coverage.filter((r) => r.category === c).length;
  const out = [`coverage: ${count("checked")} checked, ${count("not-implemented")} not implemented, ${count("skipped")} skipped, ${count("not-selected")} not selected, ${count("out-of-scope")} the gateway's own (of ${report.coverage.length} operations)`];
  for (const r of report.coverage.filter((x) => x.category === "not-implemented" || x.category === "skipped")) out.push(`  ${r.category === "skipped" ? "-" : "∅"} ${r.category} ${r.operationId}  ${r.method} ${r.path}: ${r.reason}`);
  return out;
}

/** Each bucket's 429: reached (✓), or not reached (-) and why. */
function rateLimitLines(report: Report): string[] {
  const rows = report.rate_limits ?? [];
  if (!rows.length) return [];
  const out = [`rate limits: ${rows.filter((r) => r.reached).length} of ${rows.length} buckets' 429 reached (each category, with the run's credential and without)`];
  for (const r of rows) out.push(r.reached ? `  ✓ ${r.category} (${r.bucket}): 429 reached after ${r.requests} request(s)` : `  - ${r.category} (${r.bucket}): not reached: ${r.reason}`);
  return out;
}

/** The negative values per field: how many, how answered; the fields not refused as the contract says. */
function negativeLines(report: Report): string[] {
  const n = report.negatives;
  if (!n.length) return [];
  const by = (v: NegativeResult["verdict"]) => n.filter((r) => r.verdict === v).length;
  const fields = new Set(n.map((r) => `${r.operationId} ${r.location}.${r.field}`)).size;
  return [`negative values: ${n.length} case(s) on ${fields} field(s): ${by("rejected")} refused as the contract says, ${by("accepted")} accepted, ${by("wrong-answer")} refused otherwise, ${by("inconclusive")} inconclusive, ${by("not-sent")} not sent`];
}

/**
 * The violations by operation, then by cause (groupViolations): at most four lines a cause — its first violation,
 * the request that showed it, the contract's place and a curl line; the JSON report keeps every violation.
 */
function violationsByOperation(report: Report): string[] {
  const out: string[] = [];
  const byOp = new Map<string, ViolationGroup[]>();
  for (const g of groupViolations(report.violations)) byOp.set(g.operationId, [...(byOp.get(g.operationId) ?? []), g]);
  const plural = (n: number, word: string) => `${n} ${word}${n > 1 ? "s" : ""}`;
  for (const [operationId, gs] of byOp) {
    const total = gs.reduce((n, g) => n + g.distinct, 0);
    out.push("", `${operationId}  ${gs[0]!.method} ${gs[0]!.path}  (${plural(gs.length, "cause")}, ${plural(total, "violation")})`);
    for (const { first: v, distinct } of gs) {
      const more = distinct > 1 ? ` — and ${distinct - 1} more like it (the JSON report lists all)` : "";
      out.push(`  ✗ [${v.rule}] ${v.status}: ${v.message}${v.count > 1 ? ` (×${v.count})` : ""}${more}`, `      ${v.request}`);
      const also = gs.find((g) => g.first === v)!.operations.filter((id) => id !== operationId);
      if (also.length) out.push(`      one cause on ${also.length + 1} operations: also ${also.join(", ")}`);
      if (v.reproduction) out.push(`      at ${v.reproduction.schema_path}`, `      ${v.reproduction.curl}`);
    }
  }
  return out;
}

/** JUnit XML: a test suite per operation, a test case per check that ran on it (or was skipped), failures for violations. */
export function junitXml(report: Report): string {
  const clean = (s: string) => s.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, "");
  const suites = report.operations.map((o) => {
    const byRule = new Map<string, Violation[]>();
    for (const v of report.violations) if (v.operationId === o.operationId) byRule.set(v.rule, [...(byRule.get(v.rule) ?? []), v]);
    const order = (rule: string) => (report.checks.findIndex((c) => c.rule === rule) + 1 || Infinity);
    const cases = Object.entries(o.checks)
      .sort(([a], [b]) => order(a) - order(b))
      .map(([rule, t]) => {
      const vs = byRule.get(rule) ?? [];
      const tc: Record<string, unknown> = { "@_name": rule, "@_classname": `verify.${o.operationId}` };
      if (vs.length) {
        tc.failure = {
          "@_message": clean(`${t.violations} of ${t.run} exchange(s) violate ${rule}`),
          "@_type": rule,
          "#text": clean(vs.map((v) => `${v.status}: ${v.message}${v.count > 1 ? ` (×${v.count})` : ""}\n  ${v.request}`).join("\n")),
        };
      }
      return tc;
    });
    for (const s of o.skipped) cases.push({ "@_name": `${s.case}`, "@_classname": `verify.${o.operationId}`, skipped: { "@_message": clean(s.reason) } });
    const failures = cases.filter((c) => c.failure).length;
    const skipped = cases.filter((c) => c.skipped).length;
    return { "@_name": `${o.operationId} (${o.method} ${o.path})`, "@_tests": cases.length, "@_failures": failures, "@_skipped": skipped, "@_errors": 0, testcase: cases };
  });
  const tests = suites.reduce((n, s) => n + s["@_tests"], 0);
  const failures = suites.reduce((n, s) => n + s["@_failures"], 0);
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", format: true, suppressEmptyNode: true });
  return builder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    testsuites: { "@_name": clean(`verify ${report.target}`), "@_tests": tests, "@_failures": failures, "@_errors": 0, "@_time": (report.duration_ms / 1000).toFixed(3), testsuite: suites },
  });
}

/** JSON properties whose string value is a credential (a created key's `secret`, OAuth tokens), in JSON or in JSON quoted in JSON. */
const SECRET_FIELDS = /(\\*"(?:secret|access_token|refresh_token|client_secret|api_key|token)\\*"\s*:\s*\\*")((?:[^"\\]|\\(?!"))*)/g;
/** An API key of the contract's form (`pk_live_…`, `pk_test_…`), however it is quoted or escaped. */
const API_KEY = /\bpk_(live|test)_[0-9A-Za-z_]{4,}/g;

/**
 * A report's text with every credential replaced by `[redacted]` (issue 47): the values given on the command line
 * (`known`: --api-key, --api-key-b, --token), any API key, and the values of the JSON fields that carry secrets, in
 * headers, bodies and curl lines alike.
 */
export function redactReport(text: string, known: readonly string[]): string {
  let out = text;
  for (const k of known) if (k.length >= 4) out = out.split(k).join("[redacted]");
  return out.replace(SECRET_FIELDS, "$1[redacted]").replace(API_KEY, (_m, env: string) => `pk_${env}_[redacted]`);
}
