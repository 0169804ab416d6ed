// Stateful round trips (--stateful): create → read → update → read → delete → read (then the update again:
// after-delete.ts), per resource group, each step
// judged by crud-roundtrip.ts and by every other check. Groups follow the contract's OpenAPI `links` from each
// create's success response (the same links third-party tools follow); a create without them falls back to the
// path templates: a collection `P` with POST (create) and an item `P/{id}` with GET (read), and PATCH or PUT
// (update) and DELETE if it has them. Requests are the contract's first named examples,
// with the id the create answered. Whatever the round trip creates it deletes again, when the group can.
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { CaseBuilder, Parts, RequestCase } from "../requests/cases.js";
import type { ContractView } from "../requests/contract-view.js";
import type { Job } from "../session/schedule.js";
import type { Sent } from "../session/session.js";
import { createCandidates, type RoundtripContext } from "./probe-context.js";
import { crossTenant } from "./tenancy.js";
import { softDeleteField } from "../requests/soft-delete.js";
import { useAfterDelete } from "./after-delete.js";
import type { Operation, ScenarioStep } from "../types.js";

export interface CrudGroup {
  /** The collection template, e.g. `/v1/speakers`. */
  name: string;
  create: Operation;
  read: Operation;
  update: Operation | null;
  remove: Operation | null;
  /** The item's path parameter, e.g. `speaker_id`. */
  idParam: string;
  /** The timestamp a "delete" sets on a resource that stays readable (`revoked_at` for `revokeApiKey`), if any. */
  softDeleteField: string | null;
  /** Read from the contract's `links` (true), or inferred from the path templates. */
  linked: boolean;
}

/**
 * The round trips of the contract: from the OpenAPI `links` of each create's success response when it has them
 * (the read, update and delete it links to, with the parameter the link fills from `$response.body#/id`), else
 * inferred from the path templates (decision Y10).
 */
export function crudGroups(view: ContractView, ops: Operation[]): CrudGroup[] {
  const linked = ops.map((o) => linkedGroup(view, o)).filter((g): g is CrudGroup => g !== null);
  const covered = new Set(linked.map((g) => g.create));
  return [...linked, ...guessedGroups(view, ops.filter((o) => !covered.has(o)))];
}

/** A create's round trip as its success response's `links` state it; null when it links to no read. */
function linkedGroup(view: ContractView, create: Operation): CrudGroup | null {
  if (create.method !== "post") return null;
  const response = view.contract.deref<Json>(create.op.responses?.[String(create.successCode)]);
  const targets: Array<{ op: Operation; param: string }> = [];
  for (const ref of Object.values<Json>(response?.links ?? {})) {
    const link = view.contract.deref<Json>(ref);
    const op = view.operations.find((o) => o.operationId === link?.operationId);
    const param = Object.entries<string>(link?.parameters ?? {}).find(([, v]) => v === "$response.body#/id")?.[0];
    if (op && param) targets.push({ op, param });
  }
  const by = (...methods: string[]) => targets.find((t) => methods.includes(t.op.method));
  const read = by("get");
  if (!read) return null;
  const remove = by("delete")?.op ?? null;
  return {
    name: create.template,
    create,
    read: read.op,
    update: by("patch", "put")?.op ?? null,
    remove,
    idParam: read.param,
    softDeleteField: remove ? softDeleteField(view, remove, read.op) : null,
    linked: true,
  };
}

function guessedGroups(view: ContractView, ops: Operation[]): CrudGroup[] {
  const groups: CrudGroup[] = [];
  for (const create of ops.filter((o) => o.method === "post" && !o.template.endsWith("}"))) {
    const item = (method: string) => ops.find((o) => o.method === method && new RegExp(`^${escape(create.template)}/\\{[^/}]+\\}$`).test(o.template));
    const read = item("get");
    if (!read) continue;
    const remove = item("delete") ?? null;
    groups.push({
      name: create.template,
      create,
      read,
      update: item("patch") ?? item("put") ?? null,
      remove,
      idParam: /\{([^}]+)\}$/.exec(read.template)![1]!,
      softDeleteField: remove ? softDeleteField(view, remove, read) : null,
      linked: false,
    });
  }
  return groups;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export type { RoundtripContext } from "./probe-context.js";

/** Runs one group's round trip; returns why it stopped early, or null when every step was sent. */
export async function roundtrip(g: CrudGroup, ctx: RoundtripContext): Promise<string | null> {
  const step = async (op: Operation, parts: Parts, s: ScenarioStep): Promise<Sent> => {
    if (!ctx.reach(op)) {
      const reason = `${op.operationId} is not selected (add it to --operations, or give --follow-links)`;
      ctx.report.skip(g.create, `${s.step} ${g.name}`, reason);
      return { kind: "skipped", reason };
    }
    const c: RequestCase = { operation: op, kind: "example", label: `${s.step} ${g.name}`, method: op.method.toUpperCase(), ...(await ctx.builder.render(op, parts)), credentials: "header", safety: "write" };
    const job: Job = { bucket: ctx.bucket(c), run: () => ctx.session.exchange(c, s), skip: () => {} };
    return ctx.scheduler.runOne(job);
  };
  const base = { group: g.name, softDeleteField: g.softDeleteField };
  const candidates = createCandidates(ctx, g.create);
  const first = await firstFilled(ctx, g.create, candidates);
  if ("reason" in first) {
    ctx.report.skip(g.create, `round trip ${g.name}`, `a prerequisite is missing: ${first.reason}`);
    return `a prerequisite is missing: ${first.reason}`;
  }
  let createParts = first.parts;
  let created = await step(g.create, createParts, { ...base, step: "create" });
  // The example is one this caller may not create (a test key and a live key's example: 403): a generated body
  // the caller may, as the revoked-key case does (decision Y17).
  for (const other of candidates.slice(first.index + 1)) {
    if (created.kind !== "answered" || created.exchange.response.status !== 403) break;
    const next = ctx.prereqs ? await ctx.prereqs.fill(g.create, other) : { parts: other };
    if ("reason" in next) break;
    createParts = next.parts;
    created = await step(g.create, createParts, { ...base, step: "create" });
  }
  const id = answeredId(created);
  if (!id) return created.kind === "skipped" ? created.reason : `create answered ${created.exchange.response.status}`;
  const at = (op: Operation, body?: Parts["body"]): Parts => {
    const parts = ctx.builder.examples(op)[0]!;
    return { ...parts, path: { ...createParts.path, ...parts.path, [g.idParam]: id }, body: body === undefined ? parts.body : body };
  };
  const sentBy = (parts: Parts) => (isObject(parts.body?.value) ? (parts.body!.value as Record<string, unknown>) : undefined);
  let stopped: string | null = null;
  // A 202 create is still being processed (decision D8): its fields may change as it is (`language: auto` becomes
  // the detected tag), so only its id is judged on the read that follows.
  const accepted = created.kind === "answered" && created.exchange.response.status === 202;
  const read = await step(g.read, at(g.read), { ...base, step: "read", id, ...(accepted ? {} : { sent: sentBy(createParts) }) });
  if (!answered2xx(read)) stopped = "the read after create did not succeed";
  else if (await crossTenant(ctx, g, id, (op) => at(op))) return "another workspace's key deleted the resource (reported under tenancy)";
  if (!stopped && g.update) {
    const parts = at(g.update);
    const updated = await step(g.update, parts, { ...base, step: "update", id, sent: sentBy(parts) });
    if (answered2xx(updated)) await step(g.read, at(g.read), { ...base, step: "read-updated", id, sent: sentBy(parts) });
    else stopped = "the update did not succeed";
  }
  // Delete even after a failed step: the round trip cleans up what it created.
  if (!g.remove) return stopped ?? "the resource has no DELETE: it was left in place";
  if (!ctx.reach(g.remove)) return stopped ?? `${g.remove.operationId} is not selected: the resource was left in place`;
  const removed = await step(g.remove, at(g.remove), { ...base, step: "delete", id });
  if (!answered2xx(removed)) return stopped ?? "the delete did not succeed";
  await step(g.read, at(g.read), { ...base, step: "read-deleted", id });
  if (!g.softDeleteField) await useAfterDelete(ctx, g, (op) => at(op), { readDone: true });
  return stopped;
}

/**
 * The first of `candidates` whose prerequisites can be had (an example whose optional reference can be left out
 * comes before one that needs a resource made), with its index; else the first one's reason.
 */
export async function firstFilled(ctx: RoundtripContext, op: Operation, candidates: Parts[]): Promise<{ parts: Parts; index: number } | { reason: string }> {
  let reason: string | null = null;
  for (const [index, c] of candidates.entries()) {
    const filled = ctx.prereqs ? await ctx.prereqs.fill(op, c) : { parts: c };
    if ("parts" in filled) return { parts: filled.parts, index };
    reason ??= filled.reason;
  }
  return { reason: reason ?? `${op.operationId} has no example or generated body` };
}

function answered2xx(s: Sent): boolean {
  return s.kind === "answered" && s.exchange.response.status >= 200 && s.exchange.response.status < 300;
}

function answeredId(s: Sent): string | null {
  if (!answered2xx(s) || s.kind !== "answered") return null;
  try {
    const body = JSON.parse(Buffer.from(s.exchange.response.body).toString("utf8")) as { id?: unknown };
    return typeof body.id === "string" ? body.id : null;
  } catch {
    return null;
  }
}

function isObject(v: unknown): boolean {
  return !!v && typeof v === "object" && !Array.isArray(v);
}
