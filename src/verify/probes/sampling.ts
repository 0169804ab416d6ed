// x-lifecycle sampling (decision Y52): a resource a selected create makes, whose lifecycle moves it on its own from
// its initial state (`holds` is false: an analysis queued → processing → completed), is read again and again while
// it moves, every SAMPLING.intervalMs of the run's clock, until a state the service's processing no longer leaves
// (no `async` transition: terminal, or waiting on a person or another resource, as a run awaiting approval) has been
// read twice in a row, or SAMPLING.reads reads are spent (a notice says where it stood). Each read is judged by every check:
// response-schema holds each state seen to the enum, lifecycle-observed each step to the transitions. The resource
// is deleted afterwards when its DELETE may be sent, then read and updated again (after-delete.ts: 404 both).
// Writes: only with --allow-writes.
import { holds, type Machine } from "../../contract/lifecycle.js";
import { answeredShape } from "../probe-checks/lifecycle-observed.js";
import type { Parts } from "../requests/cases.js";
import { crudGroups, firstFilled, type CrudGroup } from "./crud.js";
import { answeredJson, caseOf, createCandidates, sendCase, succeeded, type RoundtripContext } from "./probe-context.js";
import { useAfterDelete } from "./after-delete.js";
import type { Operation } from "../types.js";

/** How often and how long a moving resource is read: every second, at most 40 reads (40 s of processing). */
export const SAMPLING = { intervalMs: 1000, reads: 40 } as const;

export const SAMPLE_LABEL = "lifecycle sample";

/** Samples each selected create's resource that moves on its own (one resource per create). */
export async function lifecycleSampling(ctx: RoundtripContext, selected: Operation[], machines: Record<string, Machine>): Promise<void> {
  for (const g of crudGroups(ctx.view, ctx.view.operations).filter((x) => selected.includes(x.create))) {
    const m = answeredShape(ctx.view, machines, g.read, g.read.successCode)?.machine;
    if (!m || holds(m, m.initial)) continue;
    if (ctx.only && !ctx.only(g.read, SAMPLE_LABEL)) continue;
    if (!ctx.reach(g.read)) {
      ctx.report.skip(g.create, SAMPLE_LABEL, `${g.read.operationId} is not selected (add it to --operations, or give --follow-links): ${m.schema}'s states were not sampled`);
      continue;
    }
    const stopped = await sample(ctx, g, m);
    if (stopped) ctx.report.notices.push(`the x-lifecycle sampling of ${m.schema} (${g.create.operationId}) ${stopped}`);
  }
}

/** The service's own processing does not move a resource on from `state` (it may still time out, or follow a person). */
function settled(m: Machine, state: string): boolean {
  return !m.transitions.some((t) => t.trigger === "async" && t.from.includes(state));
}

/** Creates one resource, reads it while it moves, deletes it; returns what cut the sampling short, or null. */
async function sample(ctx: RoundtripContext, g: CrudGroup, m: Machine): Promise<string | null> {
  const filled = await firstFilled(ctx, g.create, createCandidates(ctx, g.create));
  if ("reason" in filled) return `was not done: a prerequisite is missing: ${filled.reason}`;
  const created = answeredJson(await sendCase(ctx, await caseOf(ctx, g.create, filled.parts, `${SAMPLE_LABEL}: create`)));
  const id = typeof created?.id === "string" ? created.id : null;
  if (!id) return `was not done: ${g.create.operationId} did not answer an id`;
  const at = (op: Operation): Parts => {
    const parts = ctx.builder.examples(op)[0]!;
    return { ...parts, path: { ...filled.parts.path, ...parts.path, [g.idParam]: id } };
  };
  let stopped: string | null = `stopped after ${SAMPLING.reads} reads (${(SAMPLING.reads * SAMPLING.intervalMs) / 1000} s) of ${id}`;
  let previous: unknown = created?.[m.property];
  for (let i = 0; i < SAMPLING.reads; i++) {
    if (i > 0) await ctx.session.o.clock.sleep(SAMPLING.intervalMs);
    const sent = await sendCase(ctx, await caseOf(ctx, g.read, at(g.read), SAMPLE_LABEL));
    if (sent.kind !== "answered") return `stopped: ${sent.reason}`;
    const read = answeredJson(sent);
    if (!read) {
      stopped = `stopped: reading ${id} answered ${sent.exchange.response.status}`;
      break;
    }
    const state = read[m.property];
    if (state === previous && typeof state === "string" && m.states.includes(state) && settled(m, state)) {
      stopped = null;
      break;
    }
    previous = state;
  }
  if (stopped?.startsWith("stopped after")) stopped += `: still ${String(previous)}`;
  if (g.remove && ctx.reach(g.remove) && succeeded(await sendCase(ctx, await caseOf(ctx, g.remove, at(g.remove), `${SAMPLE_LABEL}: delete`)))) await useAfterDelete(ctx, g, at);
  return stopped;
}
