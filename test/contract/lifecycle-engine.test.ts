// The lifecycle engine (src/contract/lifecycle.ts) on the contract's own machines: what each call answers, and a property
// test that random sequences of calls, processing steps, time-outs and linked moves keep every machine's rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  durationMs,
  edges,
  followers,
  initialFields,
  isTerminal,
  machinesByOperation,
  nextAsync,
  onExternal,
  onLinked,
  onOperation,
  readLifecycles,
  take,
  timeouts,
  type Machine,
  type Outcome,
  type Step,
} from "../../src/contract/lifecycle.js";
import { doc } from "../helpers/contract.js";

const machines = readLifecycles(doc);
const m = (name: string): Machine => machines[name] ?? expect.fail(`no lifecycle for ${name}`);
const now = new Date("2026-11-20T10:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
const HOUR = 3_600_000;

describe("readLifecycles", () => {
  it("reads one machine per resource schema whose state moves, its states from the enum", () => {
    // Derived from the contract, not listed: a new resource with a lifecycle needs no edit here.
    const withLifecycle = Object.entries<{ "x-lifecycle"?: unknown }>(doc.components.schemas).filter(([, s]) => s["x-lifecycle"]).map(([name]) => name);
    expect(withLifecycle.length).toBeGreaterThan(0);
    expect(Object.keys(machines).sort()).toEqual(withLifecycle.sort());
    expect(m("Analysis").states).toEqual(doc.components.schemas.AnalysisStatus.enum);
    expect(m("Speaker").property).toBe("enrollment_status");
    expect(m("Approval").transitions.find((t) => t.trigger === "timeout")?.afterMs).toBe(72 * HOUR);
  });

  it("names the schema and the field of every problem", () => {
    const broken = structuredClone(doc);
    const lc = broken.components.schemas.Analysis["x-lifecycle"];
    lc.transitions[0].to = "done";
    lc.requires.getAnalysisTranscript = ["completed", "archived"];
    broken.components.schemas.Run["x-lifecycle"].emits.canceled = ["run.cancelled"];
    expect(() => readLifecycles(broken)).toThrow(
      /Analysis: x-lifecycle\.transitions\[0\]\.to: to "done" is not a state[\s\S]*Analysis: x-lifecycle\.requires\.getAnalysisTranscript\[1\]: required state "archived"[\s\S]*Run: x-lifecycle\.emits\.canceled\[0\]: "run\.cancelled" is not a webhook/,
    );
  });

  it("checks set values with the validator it is given", () => {
    const broken = structuredClone(doc);
    broken.components.schemas.Analysis["x-lifecycle"].set.completed.progress = 101;
    expect(() => readLifecycles(broken)).not.toThrow();
    expect(() => readLifecycles(broken, { validate: (s, v) => (typeof v === "number" && v > s.maximum ? "too big" : undefined) })).toThrow(
      /Analysis: x-lifecycle\.set\.completed\.progress: 101 is not a valid Analysis\.progress: too big/,
    );
  });

  it("finds the machine of an operation from its last path parameter", () => {
    const byOp = machinesByOperation(doc, machines);
    // Every operation a machine names (its `operation` triggers and `requires`) maps to that machine: derived, not listed.
    const named = Object.values(machines).flatMap((mc) => [...mc.transitions.map((t) => t.operation), ...Object.keys(mc.requires)].filter((o): o is string => !!o).map((o) => [o, mc.schema] as const));
    expect(named.length).toBeGreaterThan(0);
    for (const [op, schema] of named) expect(byOp.get(op)?.schema, op).toBe(schema);
    expect(byOp.get("streamAnalysisEvents")?.schema).toBe("Analysis"); // `{id}`, matched by its pattern, not its name
    expect(byOp.has("createAnalysis")).toBe(false); // a collection
    expect(byOp.has("getBoard")).toBe(false); // a resource without a lifecycle
  });

  it("reads ISO 8601 durations in fixed units only", () => {
    expect([durationMs("PT72H"), durationMs("P1DT2H"), durationMs("PT1M30S"), durationMs("PT0.5S")]).toEqual([72 * HOUR, 26 * HOUR, 90_000, 500]);
    for (const bad of ["P", "PT", "P1Y", "P1M", "72h", "PT-1H", 72]) expect(durationMs(bad), String(bad)).toBeUndefined();
  });
});

describe("the engine", () => {
  it("creates a resource in its initial state with the fields and webhooks of that state", () => {
    expect(initialFields(m("Analysis"), now)).toEqual({
      kind: "transition",
      from: null,
      to: "queued",
      trigger: "create",
      fields: { status: "queued", progress: 0, summary: null, error: null, completed_at: null },
      emits: [],
    });
    const approval = initialFields(m("Approval"), now);
    expect(approval.fields).toMatchObject({ status: "pending", requested_at: at(0), expires_at: at(72 * HOUR), decided_at: null });
    expect(approval.emits).toEqual(["approval.requested"]);
    expect(initialFields(m("Agent"), now, "paused").fields).toEqual({ status: "paused" });
    expect(() => initialFields(m("Agent"), now, "archived")).toThrow(/cannot be created "archived"/);
  });

  it("answers 409 outside the states an operation requires, and nothing else changes", () => {
    const conflict = onOperation(m("Analysis"), "processing", "getAnalysisTranscript", { now });
    expect(conflict).toEqual({
      kind: "conflict",
      state: "processing",
      allowed: ["completed"],
      detail: "getAnalysisTranscript needs status completed; this Analysis is processing.",
    });
    expect(onOperation(m("Analysis"), "completed", "getAnalysisTranscript", { now })).toEqual({ kind: "none" });
    expect(onOperation(m("Run"), "succeeded", "cancelRun", { now })).toMatchObject({ kind: "conflict", allowed: ["queued", "running", "awaiting_approval"] });
    expect(onOperation(m("Approval"), "expired", "approveApproval", { now })).toMatchObject({ kind: "conflict", allowed: ["pending"] });
  });

  it("moves the resource when an operation triggers a transition; elsewhere the operation just does its work", () => {
    expect(onOperation(m("Analysis"), "processing", "deleteAnalysis", { now })).toMatchObject({ kind: "transition", to: "canceled" });
    expect(onOperation(m("Analysis"), "completed", "deleteAnalysis", { now })).toEqual({ kind: "none" }); // DELETE never answers 409
    const cancel = onOperation(m("Run"), "awaiting_approval", "cancelRun", { now }) as Step;
    expect([cancel.to, cancel.fields.finished_at, cancel.emits]).toEqual(["canceled", at(0), ["run.finished"]]);
    expect(onOperation(m("Approval"), "pending", "rejectApproval", { now })).toMatchObject({ to: "rejected", fields: { decided_at: at(0) } });
  });

  it("moves the state property through an update only along a listed transition", () => {
    expect(onOperation(m("Agent"), "active", "updateAgent", { now, requested: "paused" })).toMatchObject({ kind: "transition", from: "active", to: "paused" });
    expect(onOperation(m("Agent"), "paused", "updateAgent", { now, requested: "paused" })).toEqual({ kind: "none" });
    expect(onOperation(m("Agent"), "paused", "updateAgent", { now })).toEqual({ kind: "none" });
    expect(onOperation(m("Agent"), "archived", "updateAgent", { now, requested: "active" })).toMatchObject({ kind: "conflict", allowed: ["active", "paused"] });
    const oneWay: Machine = { ...m("Agent"), requires: {}, transitions: m("Agent").transitions.filter((t) => t.to !== "active") };
    expect(onOperation(oneWay, "paused", "updateAgent", { now, requested: "active" })).toEqual({
      kind: "conflict",
      state: "paused",
      allowed: ["archived"],
      detail: "status cannot change from paused to active; from paused it can change to archived.",
    });
  });

  it("steps the service's processing: the default outcome, or a scenario's", () => {
    const a = m("Analysis");
    expect(nextAsync(a, "queued", now)?.to).toBe("processing");
    expect(nextAsync(a, "queued", now, "fail")?.to).toBe("processing"); // no `fail` from queued: the default
    expect(nextAsync(a, "processing", now)).toMatchObject({ to: "completed", fields: { progress: 100, completed_at: at(0) }, emits: ["analysis.completed"] });
    expect(nextAsync(a, "processing", now, "fail")).toMatchObject({ to: "failed", fields: { error: { code: "processing_error" } }, emits: ["analysis.failed"] });
    expect(nextAsync(a, "completed", now)).toBeUndefined();
    expect(nextAsync(m("Run"), "queued", now)?.fields).toEqual({ status: "running", started_at: at(0) });
    expect(nextAsync(m("Run"), "awaiting_approval", now)).toBeUndefined(); // waits for its approval
  });

  it("links a run and its approval both ways", () => {
    const ask = nextAsync(m("Run"), "running", now, "approval")!;
    expect(ask.to).toBe("awaiting_approval");
    expect(ask.creates).toEqual({ schema: "Approval", link: "approval_id", back_link: "run_id", copy: ["workspace_id", "agent_id"] });
    expect(followers(machines, "Approval")).toEqual([{ machine: m("Run"), link: "approval_id" }]);
    expect(followers(machines, "Run")).toEqual([{ machine: m("Approval"), link: "run_id" }]);
    for (const decided of ["approved", "rejected", "expired"]) expect(onLinked(m("Run"), "awaiting_approval", "Approval", decided, now)?.to).toBe("running");
    expect(onLinked(m("Run"), "awaiting_approval", "Approval", "pending", now)).toBeUndefined();
    expect(onLinked(m("Approval"), "pending", "Run", "canceled", now)).toMatchObject({ to: "expired", fields: { decided_by: null } });
    expect(onLinked(m("Approval"), "approved", "Run", "canceled", now)).toBeUndefined();
  });

  it("runs time-outs and moves made outside the API", () => {
    const [expiry] = timeouts(m("Approval"), "pending");
    expect([expiry?.to, expiry?.afterMs, timeouts(m("Approval"), "approved")]).toEqual(["expired", 72 * HOUR, []]);
    expect(take(m("Approval"), "pending", expiry!, now)).toMatchObject({ to: "expired", fields: { decided_at: at(0) } });
    expect(take(m("Approval"), "rejected", expiry!, now)).toBeUndefined();
    expect(onExternal(m("Alert"), "open", "resolved", now)?.fields).toEqual({ status: "resolved", resolved_at: at(0) });
    expect(onExternal(m("Alert"), "resolved", "open", now)).toBeUndefined();
  });

  it("refuses a state that is not in the enum", () => {
    expect(() => onOperation(m("Analysis"), "done", "getAnalysis", { now })).toThrow(/"done" is not a state of Analysis\.status/);
    expect(() => nextAsync(m("Run"), "paused", now)).toThrow(/not a state/);
  });
});

/** One thing that can happen to a resource. */
type Event =
  | { kind: "operation"; operationId: string; requested?: string }
  | { kind: "async"; scenario?: string }
  | { kind: "timeout"; index: number }
  | { kind: "external"; to: string }
  | { kind: "linked"; schema: string; state: string };

function events(machine: Machine): fc.Arbitrary<Event> {
  const ops = [...new Set([...Object.keys(machine.requires), ...machine.transitions.flatMap((t) => (t.operation ? [t.operation] : []))]), "getAnything"];
  const scenarios = [...new Set(machine.transitions.flatMap((t) => (t.scenario ? [t.scenario] : []))), "unknown_scenario"];
  const linked = Object.values(machines).flatMap((o) => o.states.map((s) => ({ schema: o.schema, state: s })));
  return fc.oneof(
    fc.record({ kind: fc.constant("operation" as const), operationId: fc.constantFrom(...ops), requested: fc.option(fc.constantFrom(...machine.states), { nil: undefined }) }),
    fc.record({ kind: fc.constant("async" as const), scenario: fc.option(fc.constantFrom(...scenarios), { nil: undefined }) }),
    fc.record({ kind: fc.constant("timeout" as const), index: fc.nat(3) }),
    fc.record({ kind: fc.constant("external" as const), to: fc.constantFrom(...machine.states) }),
    fc.constantFrom(...linked).map((l) => ({ kind: "linked" as const, ...l })),
  );
}

function apply(machine: Machine, state: string, e: Event, when: Date): Outcome | Step | undefined {
  switch (e.kind) {
    case "operation":
      return onOperation(machine, state, e.operationId, { now: when, requested: e.requested });
    case "async":
      return nextAsync(machine, state, when, e.scenario);
    case "timeout": {
      const t = timeouts(machine, state)[e.index];
      return t && take(machine, state, t, when);
    }
    case "external":
      return onExternal(machine, state, e.to, when);
    case "linked":
      return onLinked(machine, state, e.schema, e.state, when);
  }
}

describe("the engine keeps every machine's rules (fast-check)", () => {
  const seed = process.env.CI ? 20261120 : undefined;
  for (const machine of Object.values(machines)) {
    it(`${machine.schema}: random sequences never leave the enum or a terminal state, and 409 exactly outside requires`, () => {
      const allowedEdges = new Set(edges(machine).map(([a, b]) => `${a} → ${b}`));
      fc.assert(
        fc.property(fc.array(fc.tuple(events(machine), fc.nat(100 * HOUR)), { maxLength: 40 }), (sequence) => {
          let state = initialFields(machine, now).to;
          let clock = now.getTime();
          for (const [e, wait] of sequence) {
            clock += wait;
            const out = apply(machine, state, e, new Date(clock));
            if (e.kind === "operation" && machine.requires[e.operationId]) {
              expect(out?.kind === "conflict").toBe(!machine.requires[e.operationId]!.includes(state));
            }
            if (out?.kind !== "transition") continue;
            expect(isTerminal(machine, state), `left terminal ${state}`).toBe(false);
            expect([out.from, machine.states.includes(out.to), out.fields[machine.property]]).toEqual([state, true, out.to]);
            expect(allowedEdges.has(`${state} → ${out.to}`), `${state} → ${out.to}`).toBe(true);
            state = out.to;
          }
        }),
        { numRuns: 300, ...(seed ? { seed } : {}) },
      );
    });
  }
});
