// Tenancy (OWASP API1, broken object-level authorization): with a second key of another workspace
// (`--api-key-b`), every resource the run creates is asked for by that key — read, update, delete — and each must
// answer the contract's 404 for an id the caller's workspace does not have, never the record; the list of its
// kind, asked by the second key, must not show it. Judged by checks/tenancy.ts. Update and delete by the second key
// are sent only for resources the run created itself (never for one it found), so a leaking backend loses nothing
// of the caller's but the run's own resource.
import type { Parts } from "./cases.js";
import { caseOf, isList, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import { operationPointer } from "./reproduce.js";
import type { Operation, Probe } from "./types.js";

/** A resource kind's operations on one item (a round trip's group, crud.ts), and its collection template. */
export interface ItemOperations {
  name: string;
  read: Operation;
  update: Operation | null;
  remove: Operation | null;
}

/** The shell variable the second key becomes in a reproduction's curl line. */
export const TENANT_B_VAR = "$API_KEY_B";

/**
 * Asks for the resource `id` of group `g` (created by the first key) with the second key: read, update, delete,
 * and the collection's list. `at` gives an operation's parts with the resource's path parameters filled in.
 * Does nothing without a second key. Returns "gone" when the second key's delete took effect (the tenancy finding:
 * the owner's steps that follow would only repeat it).
 */
export async function crossTenant(ctx: RoundtripContext, g: ItemOperations, id: string, at: (op: Operation) => Parts): Promise<"gone" | null> {
  const keyB = ctx.tenantB;
  if (!keyB) return null;
  ctx.report.tenancyChecked(g.name);
  const item = [g.read, ...(ctx.allowWrites ? [g.update, g.remove] : [])].filter((op): op is Operation => op !== null && ctx.reach(op));
  let gone: "gone" | null = null;
  for (const op of item) {
    const probe: Probe = { kind: "other-tenant", expect: 404, id, why: `${id} belongs to another workspace: to this key it does not exist`, pointer: notFoundPointer(ctx, op) };
    const sent = await sendCase(ctx, await caseOf(ctx, op, at(op), `tenancy: ${op.operationId} by key B`, { secret: keyB, secretVar: TENANT_B_VAR, probe }));
    if (op === g.remove && succeeded(sent)) gone = "gone";
  }
  if (gone) return gone;
  const list = ctx.view.operations.find((op) => op.template === g.name && isList(ctx.view, op));
  if (!list || !ctx.reach(list)) return null;
  const parts = at(list);
  const limit = ctx.view.contract.deref(list.parameters.find((p) => p.in === "query" && p.name === "limit")?.schema)?.maximum;
  const probe: Probe = { kind: "other-tenant-list", expect: 200, id, why: `${id} belongs to another workspace: its list never shows it`, pointer: `${operationPointer({ operation: list })}/responses/200` };
  const query: Record<string, unknown> = { ...parts.query, ...(typeof limit === "number" ? { limit } : {}) };
  delete query.cursor;
  await sendCase(ctx, await caseOf(ctx, list, { ...parts, query }, `tenancy: ${list.operationId} by key B`, { secret: keyB, secretVar: TENANT_B_VAR, probe }));
  return null;
}

function notFoundPointer(ctx: RoundtripContext, op: Operation): string {
  const base = operationPointer({ operation: op });
  return ctx.view.declared(op, 404) ? `${base}/responses/404` : `${base}/responses`;
}
