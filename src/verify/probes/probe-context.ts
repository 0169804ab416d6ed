// What the multi-step parts of a run share (round trips, page walks, negative cases from the contract's rules):
// the contract, the case builder, the session and the scheduler, and a way to send one case in order.
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { CaseBuilder, Parts, RequestCase } from "../requests/cases.js";
import type { ContractView } from "../requests/contract-view.js";
import type { ReportBuilder } from "../report.js";
import type { Job, Scheduler } from "../session/schedule.js";
import type { Sent, Session } from "../session/session.js";
import type { Operation, ScenarioStep } from "../types.js";

/** Fills a body's referenced ids with resources that exist (prerequisites.ts), or says why it cannot. */
export interface PrerequisiteMaker {
  fill(op: Operation, parts: Parts): Promise<{ parts: Parts } | { reason: string }>;
  /** An id of a resource of `schema`, made for `forOp` (deleted at the end of the run), or why it cannot be. */
  ensure(schema: string, forOp: Operation): Promise<{ id: string } | { reason: string }>;
}

/** Resources that exist for a nested list's path parameters (parents.ts), or why none could be had. */
export interface ParentFinder {
  partsOf(list: Operation): Promise<Parts | { reason: string }>;
  /** `parts` with a nested operation's parent path parameters naming resources that exist (when any can be had). */
  withParents(op: Operation, parts: Parts): Promise<Parts>;
  /** Each declared filter of every selected nested list, asked under a parent that exists. */
  filterCases(operations: Operation[]): Promise<void>;
}

export interface RoundtripContext {
  view: ContractView;
  builder: CaseBuilder;
  session: Session;
  scheduler: Scheduler;
  bucket: (c: RequestCase) => string;
  /** Writes may be sent (--allow-writes). */
  allowWrites: boolean;
  report: ReportBuilder;
  /** The key of another workspace (--api-key-b), for the tenancy cases (tenancy.ts); absent: tenancy is not checked. */
  tenantB?: string;
  /** Referenced resources made or named for a body (prerequisites.ts); absent: the example's ids are sent. */
  prereqs?: PrerequisiteMaker;
  /** Parents of nested lists (parents.ts); absent: the example's path parameters are sent. */
  parents?: ParentFinder;
  /** May the run send this operation (selected by --operations, or any with --follow-links)? */
  reach: (op: Operation) => boolean;
  /** Only these case labels are sent (--replay); all when absent. */
  only?: (op: Operation, label: string) => boolean;
}

/** Sends one case now (after the 429s of its bucket), with `scenario` for the round-trip check. */
export async function sendCase(ctx: RoundtripContext, c: RequestCase, scenario?: ScenarioStep): Promise<Sent> {
  // The one gate every probe passes: an operation outside --operations is never called (without --follow-links).
  if (!ctx.reach(c.operation)) return { kind: "skipped", reason: `${c.operation.operationId} is not selected (add it to --operations, or give --follow-links)` };
  const job: Job = { bucket: ctx.bucket(c), run: () => ctx.session.exchange(c, scenario), skip: () => {} };
  return ctx.scheduler.runOne(job);
}

/** A case of `op` from a set of parts, sent with the configured credential. */
export async function caseOf(ctx: RoundtripContext, op: Operation, parts: Parts, label: string, over: Partial<RequestCase> = {}): Promise<RequestCase> {
  const read = op.method === "get" || op.method === "head";
  return { operation: op, kind: "probe", label, method: op.method.toUpperCase(), ...(await ctx.builder.render(op, parts)), credentials: "header", safety: read ? "read" : "write", ...over };
}

/** The bodies a create may be tried with, in order: its named examples, then a few generated valid ones. */
export function createCandidates(ctx: Pick<RoundtripContext, "builder">, op: Operation): Parts[] {
  const generated = [1, 2, 3, 4].map((n) => ctx.builder.generatedParts(op, n)).filter((p): p is Parts => p !== null);
  return [...ctx.builder.examples(op), ...generated];
}

export function succeeded(s: Sent): boolean {
  return s.kind === "answered" && s.exchange.response.status >= 200 && s.exchange.response.status < 300;
}

/** A 2xx answer's JSON body, or null. */
export function answeredJson(s: Sent): Json | null {
  if (s.kind !== "answered" || s.exchange.response.status < 200 || s.exchange.response.status >= 300) return null;
  try {
    return JSON.parse(Buffer.from(s.exchange.response.body).toString("utf8"));
  } catch {
    return null;
  }
}

/** The component name a `$ref` names (`#/components/schemas/Speaker` → `Speaker`), or null. */
export function refName(node: Json): string | null {
  const ref = node?.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
}

/** A list operation: a GET answering `{data: [...], next_cursor, has_more}` that takes `cursor` and `limit`. */
export function isList(view: ContractView, op: Operation): boolean {
  if (op.method !== "get") return false;
  const names = new Set(op.parameters.filter((p) => p.in === "query").map((p) => p.name));
  const props = view.contract.deref(view.contract.deref(view.declared(op, 200)?.content["application/json"]?.schema))?.properties;
  return names.has("cursor") && names.has("limit") && !!props?.data && !!props.next_cursor && !!props.has_more;
}

/**
 * The list of the resources of component `schema` (`Run` → `listRuns`), if the contract has one: a top-level list
 * first, else a nested one (`Comment` → `listComments` under an analysis), whose parents `listParts` finds.
 */
export function listOf(view: ContractView, schema: string): Operation | undefined {
  const lists = view.operations.filter((op) => {
    if (!isList(view, op)) return false;
    const props = view.contract.deref(view.contract.deref(view.declared(op, 200)!.content["application/json"].schema)).properties;
    return refName(view.contract.deref(props.data)?.items) === schema;
  });
  return lists.find((op) => !op.template.includes("{")) ?? lists[0];
}

/** The parts to ask a list with: its example, with parents that exist for a nested one (null when none could be had). */
export async function listParts(ctx: Pick<RoundtripContext, "builder" | "parents">, list: Operation): Promise<Parts | null> {
  if (!ctx.parents) return ctx.builder.examples(list)[0] ?? null;
  const parts = await ctx.parents.partsOf(list);
  return "reason" in parts ? null : parts;
}
