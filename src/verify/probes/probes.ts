// Negative cases made from the contract's machine-readable rules, with no per-operation code (judged by
// checks/wrong-credentials.ts, checks/references-enforced.ts, checks/lifecycle-enforced.ts):
//   revoked key       a resource whose create answers a `secret` and that has a DELETE (API keys): create one,
//                     delete it, then call with its secret (expects 401);
//   x-references      each id property of a create body that names another resource: a well-formed id naming
//                     nothing (400), and one naming a resource in a state the rule excludes (409);
//   x-lifecycle       each operation the lifecycle `requires` in some states, called on a resource in another
//                     (409; "a second approve", "cancelling a finished run"), and each PATCH of the state property
//                     to a state no `update` transition leads to from the current one (409).
// Resources in a given state are found in their list; when none is, one is moved there by a transition the
// lifecycle allows, else the case is reported as skipped. Only states that hold are used (`holds`): a resource in
// one the service leaves by itself (an analysis queued or processing) may be past it when the probe arrives. All are
// writes (only with --allow-writes), except a GET the lifecycle restricts (`getAnalysisTranscript`), which is sent in
// a read-only run too.
import type { Json } from "../../mock/core/contract/contract-build.js";
import { holds, readLifecycles, type Machine } from "../../contract/lifecycle.js";
import type { Parts } from "../requests/cases.js";
import { crudGroups } from "./crud.js";
import { answeredJson, caseOf, createCandidates, listOf, listParts, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import { pointer } from "../session/reproduce.js";
import { referenceSites, withId, type ReferenceSite } from "./prerequisites.js";
import { unknownCredential } from "../session/session.js";
import type { Operation, Probe } from "../types.js";

/** Creates a key, revokes it, and calls with it. Returns why it could not, or null. */
export async function revokedKeyProbe(ctx: RoundtripContext, selected: Set<Operation>): Promise<string | null> {
  // Only a secret of the run's own credential's form (the `secret` schema accepts a key made like the configured
  // one, session.ts unknownCredential): a webhook's
  // signing secret is no key, and a probe with it would prove nothing (any server refuses it).
  const own = unknownCredential(ctx.session.o.credential.secret);
  const keyLike = (op: Operation) => {
    const secret = responseProperties(ctx, op).secret;
    return !!secret && ctx.view.bodyValidator(secret)(own);
  };
  const g = crudGroups(ctx.view, ctx.view.operations).find((x) => x.remove && selected.has(x.create) && keyLike(x.create));
  if (ctx.only && (!g || !ctx.only(g.read, "revoked-key"))) return null;
  if (!g) return "no selected operation creates a key of the run's credential's form (select the create of API keys, e.g. createApiKey)";
  const outside = [g.remove!, g.read].filter((op) => !ctx.reach(op)).map((op) => op.operationId);
  if (outside.length) return `${outside.join(" and ")} not selected (add to --operations, or give --follow-links)`;
  // The first named example, else generated body, the caller may create (a test key cannot create a live one: 403).
  let created: Json = null;
  for (const parts of createCandidates(ctx, g.create)) {
    created = answeredJson(await sendCase(ctx, await caseOf(ctx, g.create, parts, `revoked-key: create (${parts.name})`)));
    if (typeof created?.secret === "string" && typeof created.id === "string") break;
  }
  if (typeof created?.secret !== "string" || typeof created.id !== "string") return `no example of ${g.create.operationId} answered a secret`;
  const at = (op: Operation): Parts => { const p = ctx.builder.examples(op)[0]!; return { ...p, path: { ...p.path, [g.idParam]: created.id } }; };
  if (!succeeded(await sendCase(ctx, await caseOf(ctx, g.remove!, at(g.remove!), "revoked-key: revoke")))) return `${g.remove!.operationId} did not succeed`;
  const probe: Probe = { kind: "revoked-key", expect: 401, why: `a key deleted with ${g.remove!.operationId} no longer authenticates` };
  await sendCase(ctx, await caseOf(ctx, g.read, at(g.read), "revoked-key", { secret: created.secret, probe, safety: "refused-before-effect" }));
  return null;
}

function responseProperties(ctx: RoundtripContext, op: Operation): Record<string, Json> {
  const schema = ctx.view.contract.deref(ctx.view.declared(op, op.successCode)?.content["application/json"]?.schema);
  return ctx.view.contract.deref(schema)?.properties ?? {};
}

// ---- x-references ------------------------------------------------------------------------------------------

export async function referenceProbes(ctx: RoundtripContext, selected: Operation[], machines: Record<string, Machine>): Promise<void> {
  for (const op of selected) {
    const example = ctx.builder.examples(op)[0];
    if (!example?.body || !example.body.mediaType.includes("json")) continue;
    // Under a parent that exists (the example's may be gone): the case must fail on the reference alone.
    const base = ctx.parents ? await ctx.parents.withParents(op, example) : example;
    const sites = referenceSites(ctx.view, example.body.media.schema, [], pointer("paths", op.template, op.method, "requestBody"));
    for (const site of sites) {
      const where = site.path.filter((p) => p !== "[]").join(".");
      const idSchema = ctx.view.contract.deref(ctx.view.contract.doc.components?.schemas?.[site.schema])?.properties?.id;
      const unknown = idSchema ? (ctx.builder.generator.value(idSchema, 97) as string | undefined) : undefined;
      if (typeof unknown === "string") await referenceCase(ctx, op, base, site, unknown, { kind: "unknown-reference", expect: 400, why: `${where} must name an existing ${site.schema} (x-references)` });
      if (!site.states) continue;
      const m = machines[site.schema];
      const found = m ? await findIn(ctx, m, m.states.filter((s) => !site.states!.includes(s)), op) : null;
      const why = `${where} must name a ${site.schema} in ${site.states.join(" or ")} (x-references states)`;
      const others = found ? await validOthers(ctx, base, sites.filter((x) => x !== site), machines) : null;
      if (found && others) await referenceCase(ctx, op, others, site, found.id, { kind: "wrong-state-reference", expect: 409, why: `${why}; ${found.id} is ${found.state}` });
      else ctx.report.skip(op, `wrong-state-reference ${where}`, `no ${site.schema} outside ${site.states.join(", ")} could be found or made`);
    }
  }
}

/**
 * The example body with every other reference naming a resource that exists in an allowed state (found in its
 * list), so the one under test is the only thing wrong (the first id naming nothing answers 400 before any 409);
 * null when one cannot be found.
 */
async function validOthers(ctx: RoundtripContext, base: Parts, others: ReferenceSite[], machines: Record<string, Machine>): Promise<Parts | null> {
  let value = base.body!.value;
  for (const site of others) {
    const m = machines[site.schema];
    const list = listOf(ctx.view, site.schema);
    if (!list) return null;
    const items = await listItems(ctx, list, m?.property ?? null, site.schema);
    const ok = items.find((i) => !site.states || (i.state !== null && site.states.includes(i.state)));
    if (!ok) return null;
    const next = withId(value, site.path, ok.id);
    if (next === undefined) continue; // not in this example
    value = next;
  }
  return { ...base, body: { ...base.body!, value } };
}

async function referenceCase(ctx: RoundtripContext, op: Operation, base: Parts, site: ReferenceSite, id: string, probe: Probe): Promise<void> {
  const label = `${probe.kind} ${site.path.filter((p) => p !== "[]").join(".")}`;
  if (ctx.only && !ctx.only(op, label)) return;
  const value = withId(base.body!.value, site.path, id);
  // Only bodies the schemas accept: the case must fail on the reference alone, not on a 422.
  if (value === undefined || !ctx.view.bodyValidator(base.body!.media.schema)(value)) return;
  await sendCase(ctx, await caseOf(ctx, op, { ...base, body: { ...base.body!, value } }, label, { probe: { ...probe, pointer: site.pointer } }));
}

// ---- x-lifecycle -------------------------------------------------------------------------------------------

/**
 * A resource of `m` in one of `states` that holds (lifecycle.ts `holds`): from its list, else moved there by an
 * allowed transition (writes only). A probe needs such a state: one naming a queued analysis (reports take completed
 * ones) is judged on an answer that may come after the analysis completed, and a conforming server then rightly
 * accepts it (decision Y43).
 */
async function findIn(ctx: RoundtripContext, m: Machine, wanted: string[], op: Operation): Promise<{ id: string; state: string } | null> {
  const states = wanted.filter((s) => holds(m, s));
  const list = listOf(ctx.view, m.schema);
  if (!list || !states.length) return null;
  const items = await listItems(ctx, list, m.property, m.schema);
  const hit = items.find((i): i is { id: string; state: string } => i.state !== null && states.includes(i.state));
  if (hit || !ctx.allowWrites) return hit ?? null;
  for (const t of m.transitions.filter((x) => (x.trigger === "operation" || x.trigger === "update") && states.includes(x.to) && x.operation)) {
    const mover = ctx.view.operations.find((o) => o.operationId === t.operation);
    if (!mover) continue;
    // A few candidates: one may refuse to move for a rule of its own (an agent with runs in progress: 409).
    for (const from of items.filter((i) => i.state !== null && t.from.includes(i.state)).slice(0, 3)) {
      const parts = onResource(ctx, mover, from.id);
      if (t.trigger === "update") parts.body = { ...parts.body!, value: { [m.property]: t.to } };
      const moved = answeredJson(await sendCase(ctx, await caseOf(ctx, mover, parts, `move ${m.schema} to ${t.to} (for ${op.operationId})`)));
      if (moved?.[m.property] === t.to || (moved && !(m.property in moved))) return { id: from.id, state: t.to };
    }
  }
  return null;
}

/** The first page (as large as the list allows) of a list: each item's id and state (null without a lifecycle). */
async function listItems(ctx: RoundtripContext, list: Operation, property: string | null, schema: string): Promise<Array<{ id: string; state: string | null }>> {
  const limit = ctx.view.contract.deref(list.parameters.find((p) => p.name === "limit")?.schema)?.maximum ?? 100;
  const base = await listParts(ctx, list);
  if (!base) return [];
  const body = answeredJson(await sendCase(ctx, await caseOf(ctx, list, { ...base, query: { limit } }, `find ${schema}`)));
  const data: Json[] = Array.isArray(body?.data) ? body.data : [];
  return data.filter((d) => typeof d?.id === "string").map((d) => ({ id: d.id, state: property && typeof d[property] === "string" ? d[property] : null }));
}

/** The operation's first example with its last path parameter naming `id`. */
function onResource(ctx: RoundtripContext, op: Operation, id: string): Parts {
  const parts = ctx.builder.examples(op)[0]!;
  const last = [...op.template.matchAll(/\{([^}]+)\}/g)].pop()?.[1];
  return { ...parts, path: { ...parts.path, ...(last ? { [last]: id } : {}) } };
}

export async function lifecycleProbes(ctx: RoundtripContext, selected: Operation[], machines: Record<string, Machine>): Promise<void> {
  const writes = ctx.allowWrites;
  for (const m of Object.values(machines)) {
    for (const [opId, allowed] of Object.entries(m.requires)) {
      const op = selected.find((o) => o.operationId === opId);
      if (!op || (!writes && op.method !== "get") || (ctx.only && !ctx.only(op, "illegal-transition"))) continue;
      const found = await findIn(ctx, m, m.states.filter((s) => !allowed.includes(s)), op);
      if (!found) {
        ctx.report.skip(op, "illegal-transition", `no ${m.schema} outside ${allowed.join(", ")} could be found or made`);
        continue;
      }
      const probe: Probe = { kind: "illegal-transition", expect: 409, why: `${opId} is allowed only when ${m.schema}.${m.property} is ${allowed.join(" or ")} (x-lifecycle requires); ${found.id} is ${found.state}`, pointer: pointer("components", "schemas", m.schema, "x-lifecycle", "requires", opId) };
      await sendCase(ctx, await caseOf(ctx, op, onResource(ctx, op, found.id), "illegal-transition", { probe }));
    }
    if (writes) await illegalUpdates(ctx, m, selected);
  }
}

/** A PATCH of the state property to a state no `update` transition leads to from the current one. */
async function illegalUpdates(ctx: RoundtripContext, m: Machine, selected: Operation[]): Promise<void> {
  const updates = m.transitions.filter((t) => t.trigger === "update");
  for (const opId of new Set(updates.map((t) => t.operation!))) {
    const op = selected.find((o) => o.operationId === opId);
    if (!op || (ctx.only && !ctx.only(op, "illegal-transition"))) continue;
    const leadsTo = (s: string) => new Set([s, ...updates.filter((t) => t.operation === opId && t.from.includes(s)).map((t) => t.to)]);
    const stuck = m.states.filter((s) => m.states.some((y) => !leadsTo(s).has(y)));
    const found = await findIn(ctx, m, stuck, op);
    if (!found) {
      ctx.report.skip(op, "illegal-transition", `no ${m.schema} in ${stuck.join(", ")} could be found or made`);
      continue;
    }
    const to = m.states.find((y) => !leadsTo(found.state).has(y))!;
    const parts = onResource(ctx, op, found.id);
    if (!parts.body) continue;
    const value = { [m.property]: to };
    if (!ctx.view.bodyValidator(parts.body.media.schema)(value)) continue;
    const probe: Probe = { kind: "illegal-transition", expect: 409, why: `no transition of ${m.schema}.${m.property} leads from ${found.state} to ${to} (x-lifecycle)`, pointer: pointer("components", "schemas", m.schema, "x-lifecycle", "transitions") };
    await sendCase(ctx, await caseOf(ctx, op, { ...parts, body: { ...parts.body, value } }, "illegal-transition", { probe }));
  }
}

/** The lifecycles of the contract (none when it states none). */
export function lifecyclesOf(ctx: Pick<RoundtripContext, "view">): Record<string, Machine> {
  return readLifecycles(ctx.view.contract.doc);
}
