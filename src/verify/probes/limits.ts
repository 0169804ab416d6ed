// Every rate-limit category's 429, on purpose (decision Y53): after everything else (nothing the run still needs
// is then limited), each category of `x-rate-limit-policy` is driven to its 429 twice: with the run's credential
// (the caller's bucket) and without credentials (the anonymous bucket, spec §7 and decision M2). Each bucket is
// sent one request of a selected operation of the category; its `X-RateLimit-Remaining` says how many more reach
// the limit. They are sent, one after another and never waited for, when that many fit the budget
// (`--rate-limit-budget`, per bucket, within `--max-requests`); otherwise the bucket is "not reached", with why.
// The 429 is judged by every check like any answer (retry-after: `Retry-After`; rate-limit-headers and
// rate-limit-semantics: the limit headers). The caller's requests are reads (GET, no event stream or upgrade), so a
// read-only run reaches them too; the anonymous ones are refused before any effect (Y2).
import type { RateLimitPolicy } from "../../contract/policy.js";
import { integerHeader } from "../checks/util.js";
import type { Parts } from "../requests/cases.js";
import { caseOf, type RoundtripContext } from "./probe-context.js";
import type { RateLimitRow } from "../report.js";
import type { Operation } from "../types.js";

/** Requests a run may spend driving one bucket to its 429 (the anonymous general bucket of the smallest plan is 30). */
export const DEFAULT_RATE_LIMIT_BUDGET = 40;

export const LIMIT_LABEL = "rate limit";

/** Drives each category's caller and anonymous bucket to its 429 within the budget; a row for each. */
export async function rateLimitProbes(ctx: RoundtripContext, policy: RateLimitPolicy, selected: Operation[], budget: number): Promise<RateLimitRow[]> {
  const rows: RateLimitRow[] = [];
  for (const category of policy.categories) {
    const inCategory = selected.filter((op) => op.category.name === category.name && !op.public);
    for (const bucket of ["caller", "anonymous"] as const) {
      const row = { category: category.name, bucket, reached: false, requests: 0, reason: null as string | null };
      const op = bucket === "caller" ? inCategory.find((o) => plainRead(ctx, o)) : (inCategory.find((o) => plainRead(ctx, o)) ?? inCategory[0]);
      if (budget <= 0) row.reason = "not tried (--rate-limit-budget 0)";
      else if (!op) row.reason = inCategory.length ? "no selected operation of the category is a plain read (GET, no event stream or upgrade)" : "no selected operation is in the category";
      else await drive(ctx, op, bucket, budget, policy, row);
      rows.push(row);
    }
  }
  return rows;
}

/** A GET that answers JSON (no event stream, no WebSocket upgrade): a request that counts and costs little. */
function plainRead(ctx: RoundtripContext, op: Operation): boolean {
  const ok = ctx.view.declared(op, op.successCode);
  return op.method === "get" && !!ok && Object.keys(ok.content).some((t) => t.includes("json")) && !ctx.view.declared(op, 426);
}

async function drive(ctx: RoundtripContext, op: Operation, bucket: RateLimitRow["bucket"], budget: number, policy: RateLimitPolicy, row: RateLimitRow): Promise<void> {
  const parts: Parts | undefined = ctx.builder.examples(op)[0];
  if (!parts) return void (row.reason = `${op.operationId} has no example to send`);
  const c = await caseOf(ctx, op, parts, `${LIMIT_LABEL} ${bucket} ${op.category.name}`, bucket === "anonymous" ? { credentials: "none", safety: "refused-before-effect" } : {});
  while (row.requests < budget) {
    const sent = await ctx.session.exchange(c);
    if (sent.kind !== "answered") return void (row.reason = sent.reason);
    row.requests++;
    const { status, headers } = sent.exchange.response;
    if (status === 429) return void (row.reached = true);
    const remaining = integerHeader(headers, policy.headers.remaining);
    if (remaining === undefined || Number.isNaN(remaining)) return void (row.reason = `${op.operationId} answered ${status} without a whole ${policy.headers.remaining}: how far the limit is cannot be known`);
    if (row.requests === 1 && remaining + 1 > budget - row.requests) {
      return void (row.reason = `${policy.headers.remaining} was ${remaining}: ${remaining + 1} more requests would reach the 429, over the budget of ${budget} (--rate-limit-budget)`);
    }
  }
  row.reason = `no 429 after ${row.requests} requests (--rate-limit-budget ${budget})`;
}
