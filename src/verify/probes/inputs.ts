// Schemathesis-grade inputs (issue 46): each selected operation's first example, with fields changed to the
// boundary and unicode values their schemas allow (requests/boundaries.ts) and header values carrying a control
// byte (sent over a raw socket: no fetch sends one). fast-check generates the combinations: first one request per
// kind on purpose (every field at its upper bound, every field at its lower bound, every string unicode, every
// header with a control byte), then random ones. A request that any check faults (a 500 by not-a-server-error, a
// 422 to a valid body by valid-input-accepted, an answer off its schema…) is shrunk by fast-check to the fewest
// changed fields, each at its simplest failing value, that still fail the same rule; only that minimal request is
// recorded (its reproduction and curl line are the minimal one's), with a notice of what was shrunk. Every other
// request is recorded as sent. Bounded by `--input-budget` requests in all, shrinking included (decision Y56).
import fc from "fast-check";
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { Parts } from "../requests/cases.js";
import { isJsonMediaType } from "../requests/contract-view.js";
import { boundaryValues, CONTROL_BYTES, type BoundaryValue } from "../requests/boundaries.js";
import type { Sent } from "../session/session.js";
import type { Operation } from "../types.js";
import { firstFilled } from "./crud.js";
import { caseOf, type RoundtripContext } from "./probe-context.js";

/** One place a value can be changed: a body field (dotted), a query parameter or a header, and its values. */
interface Site {
  key: string;
  location: "body" | "query" | "header";
  name: string[];
  values: BoundaryValue[];
}

/** Which site takes which of its values (an index), or keeps the example's (undefined). */
type Mutation = Record<string, number | undefined>;

/** The requests one kind of example sets on purpose, each field at its value of that kind. */
const KINDS: Array<Array<BoundaryValue["kind"]>> = [["max-length", "maximum", "max-items", "huge"], ["empty", "min-length", "minimum", "min-items", "negative"], ["unicode"], ["control-byte"]];

/** Requests the shrinking of one failure may send at most. */
const SHRINK_REQUESTS = 16;
const MAX_DEPTH = 2;

function setAt(value: Record<string, unknown>, path: string[], v: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  if (!rest.length) return { ...value, [head]: v };
  const inner = value[head];
  return { ...value, [head]: setAt(inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {}, rest, v) };
}

/** The body's fields (nested objects to MAX_DEPTH) with the boundary values their own schema takes. */
function bodySites(ctx: RoundtripContext, schema: Json, own: unknown, path: string[] = []): Site[] {
  const deref = (n: Json) => ctx.view.contract.deref(n);
  const s = deref(schema);
  if (!s || typeof s !== "object" || path.length > MAX_DEPTH) return [];
  const out: Site[] = [];
  for (const [name, p] of Object.entries<Json>(s.properties ?? {})) {
    const ps = deref(p);
    const here = own && typeof own === "object" ? (own as Record<string, unknown>)[name] : undefined;
    if (ps?.properties) out.push(...bodySites(ctx, p, here, [...path, name]));
    const takes = ctx.view.bodyValidator(p);
    const values = boundaryValues(ps, deref(ps?.items), here).filter((b) => takes(b.value));
    if (values.length) out.push({ key: `body.${[...path, name].join(".")}`, location: "body", name: [...path, name], values });
  }
  return out;
}

/**
 * Query parameters with the boundary values their schema takes, and header parameters with control bytes; the
 * request-id header every operation takes (the root's `x-request-id`) only when `requestId` (once a run: the same
 * header code serves every operation).
 */
function paramSites(ctx: RoundtripContext, op: Operation, raw: boolean, requestId: boolean): Site[] {
  const out: Site[] = [];
  for (const p of op.parameters.filter((x) => x.in === "query" && x.name !== "cursor")) {
    const s = ctx.view.contract.deref(p.schema);
    const takes = ctx.view.headerValidator(p.schema);
    const values = boundaryValues(s, ctx.view.contract.deref(s?.items), undefined).filter((b) => !Array.isArray(b.value) && takes(typeof b.value === "string" ? b.value : String(b.value)));
    if (values.length) out.push({ key: `query.${p.name}`, location: "query", name: [p.name], values });
  }
  if (!raw) return out;
  const headers = [...op.parameters.filter((x) => x.in === "header").map((x) => x.name as string), ...(requestId ? [ctx.view.requestId.header] : [])];
  for (const h of new Set(headers.map((x) => x.toLowerCase()))) {
    out.push({ key: `header.${h}`, location: "header", name: [h], values: CONTROL_BYTES.map((b) => ({ kind: "control-byte", value: `verify${b}1` })) });
  }
  return out;
}

/** Operations the inputs are tried on: not public, not a stream, writes only with --allow-writes. */
function eligible(ctx: RoundtripContext, op: Operation): boolean {
  if (op.public || op.template.startsWith("/ws")) return false;
  if (op.method !== "get" && op.method !== "head" && !ctx.allowWrites) return false;
  const ok = ctx.view.declared(op, 200) ?? ctx.view.declared(op, 201);
  return !Object.keys(ok?.content ?? {}).some((mt) => mt.startsWith("text/event-stream"));
}

/** The example's parts with a mutation applied, and its headers (a control byte marks the case raw). */
function applied(base: Parts, sites: Site[], m: Mutation, counter: number): { parts: Parts; headers: Record<string, string>; label: string } {
  let body = base.body?.value as Record<string, unknown>;
  const query = { ...base.query };
  const headers: Record<string, string> = {};
  const changed: string[] = [];
  for (const site of sites) {
    const i = m[site.key];
    if (i === undefined) continue;
    const b = site.values[i]!;
    changed.push(`${site.key} ${b.kind}`);
    if (site.location === "body") body = setAt(body, site.name, b.value);
    else if (site.location === "query") query[site.name[0]!] = b.value;
    else headers[site.name[0]!] = `${b.value as string}${counter}`;
  }
  const parts: Parts = { ...base, query, body: base.body ? { ...base.body, value: body } : null };
  return { parts, headers, label: `inputs ${changed.join(", ") || "example"}` };
}

/** The examples fast-check runs first: per kind, every site that has a value of it set to it. */
function examplesOf(sites: Site[]): Mutation[] {
  const out: Mutation[] = [];
  for (const kinds of KINDS) {
    const m: Mutation = {};
    for (const s of sites) {
      const i = s.values.findIndex((v) => kinds.includes(v.kind));
      if (i >= 0) m[s.key] = i;
    }
    if (Object.keys(m).length) out.push(m);
  }
  return out;
}

/** The mutations whose label a replay names: the kinds' examples, and each single site at each of its values. */
function replayed(ctx: RoundtripContext, op: Operation, base: Parts, sites: Site[]): Mutation[] {
  const singles = sites.flatMap((s) => s.values.map((_, i): Mutation => ({ [s.key]: i })));
  return [...examplesOf(sites), ...singles].filter((m) => ctx.only!(op, applied(base, sites, m, 0).label));
}

/** The budget left, shared by every operation of a run. */
interface Budget {
  left: number;
  /** The request-id header's control bytes are still to be tried (once a run). */
  requestId: boolean;
}

/** The places of an operation's example that take boundary values. */
function sitesOf(ctx: RoundtripContext, op: Operation, base: Parts, requestId: boolean): Site[] {
  const raw = !ctx.session.o.send.fetch || !!ctx.session.o.send.raw;
  const json = base.body && isJsonMediaType(base.body.mediaType) && base.body.value && typeof base.body.value === "object" && !Array.isArray(base.body.value);
  return [...(json ? bodySites(ctx, base.body!.media.schema, base.body!.value) : []), ...paramSites(ctx, op, raw, requestId)];
}

/** One operation's inputs: `examples` first, `random` generated ones, and the shrinking of a failure. */
async function inputsOf(ctx: RoundtripContext, op: Operation, base: Parts, examples: Mutation[], budget: Budget, random: number, seed: number): Promise<void> {
  const sites = sitesOf(ctx, op, base, budget.requestId);
  // The kinds' requests already set every parameter at each of its values: a random mix only where a body has fields to mix.
  if (!sites.some((s) => s.location === "body")) random = 0;
  const arbitrary = fc.record(Object.fromEntries(sites.map((s) => [s.key, fc.option(fc.nat(s.values.length - 1), { nil: undefined })])), { requiredKeys: [] }) as fc.Arbitrary<Mutation>;
  let target: string | null = null;
  let failing: { sent: Sent & { kind: "answered" }; label: string; changed: number } | null = null;
  let first = 0;
  let shrinkLeft = SHRINK_REQUESTS;
  let counter = 0;
  const property = fc.asyncProperty(arbitrary, async (m) => {
    if (budget.left <= 0 || (target && shrinkLeft <= 0)) return true;
    budget.left--;
    if (target) shrinkLeft--;
    const { parts, headers, label } = applied(base, sites, m, ++counter);
    const c = await caseOf(ctx, op, parts, label, { headers, ...(Object.keys(headers).length ? { raw: true } : {}) });
    const sent = await ctx.scheduler.runOne({ bucket: ctx.bucket(c), run: () => ctx.session.exchange(c, undefined, { hold: true }), skip: () => {} });
    if (sent.kind !== "answered") return true;
    const bad = (sent.results ?? []).filter((r) => r.violations.length).map((r) => r.rule);
    if (target ? bad.includes(target) : bad.length) {
      target ??= bad[0]!;
      if (!failing) first = Object.values(m).filter((x) => x !== undefined).length;
      failing = { sent, label, changed: Object.values(m).filter((x) => x !== undefined).length };
      return false;
    }
    sent.commit?.();
    return true;
  });
  await fc.check(property, { numRuns: examples.length + random, seed, examples: examples.map((m) => [m]) });
  const found = failing as { sent: Sent & { kind: "answered" }; label: string; changed: number } | null;
  if (!found) return;
  found.sent.commit?.();
  ctx.report.notices.push(`${op.operationId}: a request failing ${target} was shrunk from ${first} changed value(s) to ${found.changed} (${found.label.replace(/^inputs /, "")}); the report shows the minimal one`);
}

/**
 * The boundary, unicode and control-byte inputs of the selected operations, at most `budget` requests in all;
 * `random`: generated combinations per operation beyond the examples of each kind.
 */
export async function boundaryInputs(ctx: RoundtripContext, operations: Operation[], o: { budget: number; random: number; seed: number }): Promise<void> {
  const budget: Budget = { left: o.budget, requestId: true };
  let skipped = 0;
  for (const op of operations) {
    if (!eligible(ctx, op)) continue;
    if (budget.left <= 0) {
      skipped++;
      continue;
    }
    const examples = ctx.builder.examples(op);
    if (!examples[0]) continue;
    // A replay (--replay) sends only the labels it names: the kinds' examples and single changes are what it can name.
    const sites = sitesOf(ctx, op, examples[0], budget.requestId);
    const mutations = ctx.only ? replayed(ctx, op, examples[0], sites) : examplesOf(sites);
    if (!mutations.length) continue;
    const filled = ctx.prereqs && op.method !== "get" ? await firstFilled(ctx, op, examples) : { parts: examples[0] };
    if ("reason" in filled) {
      ctx.report.skip(op, "inputs", `boundary inputs not sent: ${filled.reason}`);
      continue;
    }
    const base = ctx.parents && op.template.includes("{") ? await ctx.parents.withParents(op, filled.parts) : filled.parts;
    await inputsOf(ctx, op, base, mutations, budget, ctx.only ? 0 : o.random, o.seed);
    if (sites.some((s) => s.key === `header.${ctx.view.requestId.header.toLowerCase()}`)) budget.requestId = false;
  }
  if (skipped) ctx.report.notices.push(`boundary inputs of ${skipped} operation(s) not sent: --input-budget ${o.budget} used up`);
}
