// Tenancy (OWASP API1, broken object-level authorization): with a second key of another workspace
// (`--api-key-b`), every resource the run creates is asked for by that key — read, update, delete — and each must
// answer the contract's 404 for an id the caller's workspace does not have, never the record; the list of its
// kind, asked by the second key, must not show it. Judged by checks/tenancy.ts. Update and delete by the second key
// are sent only for resources the run created itself (never for one it found), so a leaking backend loses nothing
// of the caller's but the run's own resource.
import type { Parts } from "../requests/cases.js";
import { answeredJson, caseOf, isList, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import type { Sent } from "../session/session.js";
import { operationPointer } from "../session/reproduce.js";
import type { Operation, Probe } from "../types.js";

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
  const related = relatedReads(ctx, g.read);
  const item = [g.read, ...related, ...(ctx.allowWrites ? [g.update, g.remove] : [])].filter((op): op is Operation => op !== null && ctx.reach(op));
  let gone: "gone" | null = null;
  for (const op of item) {
    const probe: Probe = { kind: "other-tenant", expect: 404, id, why: `${id} belongs to another workspace: to this key it does not exist`, pointer: notFoundPointer(ctx, op) };
    const sent = await sendCase(ctx, await caseOf(ctx, op, related.includes(op) ? naming(ctx, op, id) : at(op), `tenancy: ${op.operationId} by key B`, { secret: keyB, secretVar: TENANT_B_VAR, probe }));
    if (op === g.remove && succeeded(sent)) gone = "gone";
  }
  if (gone) return gone;
  for (const op of relatedStreams(ctx, g.read).filter((x) => ctx.reach(x))) await upgradeByB(ctx, op, id, keyB);
  const list = ctx.view.operations.find((op) => op.template === g.name && isList(ctx.view, op));
  if (!list || !ctx.reach(list)) return null;
  const parts = at(list);
  const probe: Probe = { kind: "other-tenant-list", expect: 200, id, why: `${id} belongs to another workspace: its list never shows it`, pointer: `${operationPointer({ operation: list })}/responses/200` };
  const query: Record<string, unknown> = { ...parts.query, ...maxLimit(ctx, list) };
  delete query.cursor;
  await sendCase(ctx, await caseOf(ctx, list, { ...parts, query }, `tenancy: ${list.operationId} by key B`, { secret: keyB, secretVar: TENANT_B_VAR, probe }));
  return null;
}

/** The one path parameter's id pattern of `op`, or null. */
function idPattern(ctx: RoundtripContext, op: Operation): string | null {
  const params = op.parameters.filter((p) => p.in === "path");
  return params.length === 1 ? (ctx.view.contract.deref(params[0]!.schema)?.pattern ?? null) : null;
}

/**
 * The other reads of the resource `read` names: every GET whose one path parameter takes the same ids (the same
 * `pattern`): its sub-resources and its event stream (`/v1/analysis/{id}/stream`). WebSocket streams (`/ws/…`)
 * answer a plain GET 426 before they look the id up, so they are not among them.
 */
export function relatedReads(ctx: RoundtripContext, read: Operation): Operation[] {
  const pattern = idPattern(ctx, read);
  if (!pattern) return [];
  return ctx.view.operations.filter((op) => op !== read && op.method === "get" && !op.template.startsWith("/ws") && idPattern(ctx, op) === pattern);
}

/** The WebSocket streams (`/ws/…`) of the resource `read` names: the same id pattern in their one path parameter. */
export function relatedStreams(ctx: RoundtripContext, read: Operation): Operation[] {
  const pattern = idPattern(ctx, read);
  return pattern ? ctx.view.operations.filter((op) => op.method === "get" && op.template.startsWith("/ws") && idPattern(ctx, op) === pattern) : [];
}

/**
 * A WebSocket upgrade of `op` on `id` by the second key, over a raw connection (a plain GET only gets the 426):
 * the contract's 404, never 101 Switching Protocols. The connection is closed once the answer's head is read.
 */
async function upgradeByB(ctx: RoundtripContext, op: Operation, id: string, keyB: string): Promise<void> {
  const label = `tenancy: ${op.operationId} by key B`;
  if (ctx.only && !ctx.only(op, label)) return;
  const path = (await ctx.builder.render(op, naming(ctx, op, id))).path;
  const probe: Probe = { kind: "other-tenant", expect: 404, id, why: `${id} belongs to another workspace: its stream does not open for this key`, pointer: notFoundPointer(ctx, op) };
  const wsKey = Buffer.from(id.padEnd(16, "0").slice(0, 16)).toString("base64");
  const raw = (target: string, host: string) =>
    `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${wsKey}\r\n${ctx.view.apiKeyHeader}: ${keyB}\r\n\r\n`;
  await ctx.scheduler.runOne({ bucket: `caller-b:${op.category.name}`, run: () => ctx.session.exchangeRaw(op, label, path, raw, { probe, secret: [keyB, TENANT_B_VAR] }), skip: () => {} });
}

/** Parts of `op` (a related read) naming `id` in its one path parameter. */
export function naming(ctx: RoundtripContext, op: Operation, id: string): Parts {
  const parts = ctx.builder.examples(op)[0]!;
  const name = op.parameters.find((p) => p.in === "path")?.name;
  return name ? { ...parts, path: { ...parts.path, [name]: id } } : parts;
}

/**
 * Tenancy on resources the run finds rather than makes: the first item of each selected top-level list (asked by
 * the first key) is read by the second key with its related reads, and looked for in the second key's list. Only
 * reads: what the run did not make it never changes. An id the second key's own list also shows names a resource
 * of both workspaces (fixtures seeded alike): not judged, said in a notice.
 */
export async function foundTenancy(ctx: RoundtripContext, operations: Operation[]): Promise<void> {
  if (!ctx.tenantB) return;
  for (const list of operations.filter((op) => isList(ctx.view, op) && !op.template.includes("{"))) {
    const read = ctx.view.operations.find((op) => op.method === "get" && op.template.startsWith(`${list.template}/{`) && op.template.split("/").length === list.template.split("/").length + 1);
    if (!read || !ctx.reach(read) || ctx.report.tenancyResources.has(list.template)) continue;
    const id = firstId(await sendCase(ctx, await caseOf(ctx, list, ctx.builder.examples(list)[0]!, "tenancy: find")));
    if (!id) continue;
    const own = await sendCase(ctx, await caseOf(ctx, list, { ...ctx.builder.examples(list)[0]!, query: maxLimit(ctx, list) }, "tenancy: the second key's own", { secret: ctx.tenantB, secretVar: TENANT_B_VAR }));
    if (own.kind !== "answered" || own.exchange.response.status !== 200) continue;
    if (listedIds(own).includes(id)) {
      ctx.report.notices.push(`tenancy of ${list.template}: ${id}, found with the first key, is also in the second key's own list (both workspaces have it): not judged`);
      continue;
    }
    await crossTenant(ctx, { name: list.template, read, update: null, remove: null }, id, (op) => (op === list ? ctx.builder.examples(list)[0]! : naming(ctx, op, id)));
  }
}

function maxLimit(ctx: RoundtripContext, list: Operation): Record<string, unknown> {
  const limit = ctx.view.contract.deref(list.parameters.find((p) => p.in === "query" && p.name === "limit")?.schema)?.maximum;
  return typeof limit === "number" ? { limit } : {};
}

function listedIds(s: Sent): string[] {
  const body = answeredJson(s) as { data?: Array<{ id?: unknown }> } | null;
  return Array.isArray(body?.data) ? body.data.map((x) => x?.id).filter((x): x is string => typeof x === "string") : [];
}

function firstId(s: Sent): string | null {
  return listedIds(s)[0] ?? null;
}

function notFoundPointer(ctx: RoundtripContext, op: Operation): string {
  const base = operationPointer({ operation: op });
  return ctx.view.declared(op, 404) ? `${base}/responses/404` : `${base}/responses`;
}
