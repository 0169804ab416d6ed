// Use after delete (decision Y55): after a probe deleted a resource it made, its read and its update (the first
// example's body) are sent again with its id; both must answer 404 (probe-checks/use-after-delete.ts). Sent by the
// x-lifecycle sampling (sampling.ts) in any --allow-writes run, and after the round trip's read after delete
// (crud.ts, --stateful), each only on operations the run may call.
import type { Parts } from "../requests/cases.js";
import { caseOf, sendCase, type RoundtripContext } from "./probe-context.js";
import type { Operation } from "../types.js";

export const AFTER_DELETE_LABEL = "use after delete";

/** Sends the group's read (unless `readDone`) and update on the deleted resource `at` names. */
export async function useAfterDelete(ctx: RoundtripContext, g: { read: Operation; update: Operation | null }, at: (op: Operation) => Parts, o: { readDone?: boolean } = {}): Promise<void> {
  const ops = [o.readDone ? null : g.read, g.update].filter((op): op is Operation => op !== null && ctx.reach(op));
  for (const op of ops) {
    const label = `${AFTER_DELETE_LABEL}: ${op === g.read ? "read" : "update"}`;
    if (ctx.only && !ctx.only(op, label)) continue;
    await sendCase(ctx, await caseOf(ctx, op, at(op), label));
  }
}
