// Moves stored resources along their contract lifecycles (x-lifecycle, read by src/contract/lifecycle.ts): applies each
// step the engine computes (fields, `updated_at`, webhooks, created and linked resources), and schedules what
// comes next: the service's processing one step every `stepMs`, and time-outs. Nothing here names a resource or
// a state; what a resource does besides (an analysis's event log and content) is its ResourceHooks'.
import { followers, initialFields, nextAsync, onExternal, onLinked, onOperation, take, timeouts, type Machine, type Outcome, type Step } from "../../../contract/lifecycle.js";
import type { Clock } from "../clock/clock.js";
import type { Json } from "../contract/contract-build.js";
import type { StoreModel } from "./model.js";
import { Rec, type WorkspaceData } from "./records.js";

/** What a resource of one schema does besides its lifecycle (the analysis: its event log and content). */
export interface ResourceHooks {
  /** A step was applied to `rec` (its first one included: the creation). */
  afterStep(ws: WorkspaceData, rec: Rec, step: Step): void;
  /** While `rec` waits `stepMs` for its next processing step: tasks to run meanwhile, at fractions (0–1) of the wait. */
  meanwhile?(ws: WorkspaceData, rec: Rec, next: Step): Array<{ at: number; run: () => void }>;
}

/** Where the driver sends webhooks: `data` is `{<resource>: value}` as the event's schema names it. */
export interface WebhookSink {
  emit(workspaceId: string, eventType: string, data: unknown): void;
}

export interface DriverOptions {
  model: StoreModel;
  /** The time steps are stamped with, and the timers of the steps to come. */
  clock: Clock;
  stepMs: number;
  webhooks: WebhookSink;
  /** Makes a resource of `schema` for a `creates` transition (the store builds it from the contract). */
  create(ws: WorkspaceData, schema: string, fields: Json): Rec;
  /** A scenario set on `rec` from outside (a fault rule), among those its state's processing can take. */
  scenarioOf?: (ws: WorkspaceData, rec: Rec, scenarios: readonly string[]) => string | undefined;
  /**
   * Runs a scheduled step of `rec`: at once by default; replicas on a shared database run it under the workspace's
   * lock, and not at all when another replica has moved the resource meanwhile (state-pg.ts, decisions SB8, SB15).
   */
  gate?: (ws: WorkspaceData, rec: Rec, run: () => void) => void;
}

export class Driver {
  readonly hooks = new Map<string, ResourceHooks>();
  /** Webhook event type → the property of its `data` that holds the resource. */
  private readonly dataKeys = new Map<string, string>();

  constructor(private readonly o: DriverOptions) {
    const { contract } = o.model;
    for (const [type, item] of Object.entries<Json>(contract.doc.webhooks ?? {})) {
      const schema = contract.deref(contract.deref(item)?.post?.requestBody?.content?.["application/json"]?.schema);
      const data = contract.deref(schema?.properties?.data);
      const key = Object.entries<Json>(data?.properties ?? {}).find(([, p]) => typeof p?.$ref === "string")?.[0];
      if (key) this.dataKeys.set(type, key);
    }
  }

  now(): Date {
    return new Date(this.o.clock.now());
  }

  private machine(rec: Rec): Machine {
    return rec.coll.machine!;
  }

  /** A new resource enters its initial state (or `requested`, where its create body may choose another). */
  start(ws: WorkspaceData, rec: Rec, requested?: string): void {
    rec.driven = !rec.held;
    this.apply(ws, rec, initialFields(this.machine(rec), this.now(), requested));
  }

  /** An operation on `rec`: a 409 conflict, a transition (applied here), or nothing to do. */
  operation(ws: WorkspaceData, rec: Rec, operationId: string, requested?: string): Outcome {
    const m = this.machine(rec);
    const out = onOperation(m, rec.value[m.property], operationId, { now: this.now(), ...(requested !== undefined ? { requested } : {}) });
    if (out.kind === "transition") this.apply(ws, rec, out);
    return out;
  }

  /** A move made outside the API (a person in the dashboard); false when the lifecycle has no such move. */
  external(ws: WorkspaceData, rec: Rec, to: string): boolean {
    const m = this.machine(rec);
    const step = onExternal(m, rec.value[m.property], to, this.now());
    if (step) this.apply(ws, rec, step);
    return step !== undefined;
  }

  /** The service's processing takes `rec`'s next step now (the scenario's, if it has one). */
  advance(ws: WorkspaceData, rec: Rec, scenario = rec.scenario ?? this.outsideScenario(ws, rec)): Step | undefined {
    const m = this.machine(rec);
    const step = nextAsync(m, rec.value[m.property], this.now(), scenario);
    if (step) this.apply(ws, rec, step);
    return step;
  }

  /** The scenario a fault rule sets on `rec`, when its current state's processing can take it. */
  private outsideScenario(ws: WorkspaceData, rec: Rec): string | undefined {
    if (!this.o.scenarioOf) return undefined;
    const m = this.machine(rec);
    const state = rec.value[m.property];
    const scenarios = m.transitions.filter((t) => t.trigger === "async" && t.scenario !== undefined && t.from.includes(state)).map((t) => t.scenario!);
    return scenarios.length ? this.o.scenarioOf(ws, rec, scenarios) : undefined;
  }

  /** Writes a step into `rec` and does what entering its state does. */
  apply(ws: WorkspaceData, rec: Rec, step: Step): void {
    const m = this.machine(rec);
    this.consumeScenario(rec, m, step);
    Object.assign(rec.value, step.fields);
    if (step.from !== null && Object.hasOwn(rec.coll.properties, "updated_at")) rec.value.updated_at = this.now().toISOString();
    if (step.from !== null && !rec.held) rec.driven = true;
    if (step.creates) {
      const c = step.creates;
      const linked = this.o.create(ws, c.schema, { [c.back_link]: rec.key, ...Object.fromEntries(c.copy.map((k) => [k, rec.value[k]])) });
      rec.value[c.link] = linked.key;
    }
    rec.changed();
    this.hooks.get(rec.coll.schema)?.afterStep(ws, rec, step);
    for (const type of step.emits) {
      const key = this.dataKeys.get(type);
      if (key) this.o.webhooks.emit(ws.id, type, { [key]: structuredClone(rec.value) });
    }
    rec.cancelTimers();
    this.arm(ws, rec);
    this.tellFollowers(ws, rec, m, step.to);
  }

  /** A scenario is taken once: after its transition the resource goes on by default (a run asks for approval once). */
  private consumeScenario(rec: Rec, m: Machine, step: Step): void {
    if (rec.scenario === undefined || step.trigger !== "async" || step.from === null) return;
    const t = m.transitions.find((x) => x.trigger === "async" && x.scenario === rec.scenario && x.from.includes(step.from!));
    if (t?.to === step.to) rec.scenario = undefined;
  }

  /**
   * Schedules what happens next in `rec`'s current state: its time-outs, and the next processing step; `backup` ms
   * later than due when another replica wrote it (state-pg.ts, SB17: that replica moves it; this one only if not).
   */
  arm(ws: WorkspaceData, rec: Rec, backup = 0): void {
    if (!rec.driven) return;
    const m = this.machine(rec);
    const state = rec.value[m.property];
    for (const t of timeouts(m, state)) {
      rec.cancels.push(
        this.later(ws, rec, t.afterMs! + backup, () => {
          const step = take(m, rec.value[m.property], t, this.now());
          if (step) this.apply(ws, rec, step);
        }),
      );
    }
    if (rec.held) return;
    const next = nextAsync(m, state, this.now(), rec.scenario);
    if (!next) return;
    for (const task of this.hooks.get(rec.coll.schema)?.meanwhile?.(ws, rec, next) ?? []) {
      rec.cancels.push(this.later(ws, rec, Math.round(task.at * this.o.stepMs) + backup, task.run));
    }
    rec.cancels.push(this.later(ws, rec, this.o.stepMs + backup, () => this.advance(ws, rec)));
  }

  /** Schedules `run` on `rec` of `ws`, through the gate when there is one. */
  private later(ws: WorkspaceData, rec: Rec, ms: number, run: () => void) {
    const gate = this.o.gate;
    const clock = this.o.clock;
    // Through a gate the step runs later than due (after a lock): as of its due time (SB24), so an advance of the
    // clock moves every step due by then, as in one process.
    const late = (due: number) => () => (clock.runAs ? clock.runAs(due, run) : run());
    return clock.after(ms, gate ? () => gate(ws, rec, late(clock.now())) : run);
  }

  /** Resources linked to `rec` (a run's approval, an approval's run) follow its move into `state`. */
  private tellFollowers(ws: WorkspaceData, rec: Rec, m: Machine, state: string): void {
    for (const { machine, link } of followers(this.o.model.machines, m.schema)) {
      const coll = this.o.model.collections.get(machine.schema);
      if (!coll) continue;
      for (const f of [...ws.table(coll).where(link, rec.key)]) {
        const step = onLinked(machine, f.value[machine.property], m.schema, state, this.now());
        if (step) this.apply(ws, f, step);
      }
    }
  }
}
