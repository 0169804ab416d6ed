// Fault rules (decision MC3): failures set on the mock from outside (`POST /__mock/faults`), so the app under test
// keeps sending its ordinary requests and meets them:
//   {"operationId": "createAnalysis", "status": 503, "times": 3}   the next 3 createAnalysis answer 503
//   {"resource": "anl_…", "scenario": "fail"}                      this analysis fails at its next processing step
//   {"operationId": "streamAnalysisEvents", "break_after": 2}      the stream breaks after 2 events
// A rule matches by operationId, by resource id (any path parameter of the request, or the resource a lifecycle
// moves) or both, optionally in one workspace; `times` (default: until cleared) counts the requests it changes.
// Its effect is exactly one of:
//   status        a status the operation documents: answered as `Prefer: code=<status>` would (the contract's
//                 example; a 429 agrees with its headers); or 502, 503 or 504, which a proxy in front of any
//                 service may answer whatever its contract says: `{detail}`, `X-Mock-Notice` saying so, and on a
//                 503 a `Retry-After`
//   scenario      a lifecycle outcome (`x-lifecycle` … `scenario:`) of the resource's collection: a create takes it
//                 as with `Prefer: scenario=`, an existing resource at its next processing step
//   break_after   an event stream (SSE or the analysis WebSocket) breaks after that many events: the connection
//                 closes without the stream's closing event (a WebSocket without a close frame: 1006), as a
//                 dropped connection does; the client reconnects with Last-Event-ID
// Rules are checked when set: an unknown operationId, a status or scenario the operation or resource does not
// have, a resource id no collection's ids look like, each answer 400 naming the field.
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";
import type { StoreModel, CollectionModel } from "../store/model.js";
import { array, object, SnapshotError } from "../state/snapshot.js";
import type { MockState } from "../state/state.js";
import { machineScenarios } from "../store/scenarios.js";

export interface FaultRule {
  operationId?: string;
  resource?: string;
  workspace_id?: string;
  status?: number;
  scenario?: string;
  break_after?: number;
  times?: number;
}

export interface ListedFault extends FaultRule {
  id: string;
  /** Requests (or steps, or streams) it has changed so far. */
  used: number;
}

const RULE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    operationId: { type: "string", minLength: 1 },
    resource: { type: "string", minLength: 1 },
    workspace_id: { type: "string", minLength: 1 },
    status: { type: "integer", minimum: 100, maximum: 599 },
    scenario: { type: "string", minLength: 1 },
    break_after: { type: "integer", minimum: 0 },
    times: { type: "integer", minimum: 1 },
  },
  anyOf: [{ required: ["operationId"] }, { required: ["resource"] }],
  oneOf: [{ required: ["status"] }, { required: ["scenario"] }, { required: ["break_after"] }],
} as const;

/** What a proxy in front of any service may answer, documented or not: a fault rule may ask for these anywhere. */
export const EDGE_STATUSES: readonly number[] = [502, 503, 504];

/** A rule the mock cannot keep: the message names the field. */
export class FaultError extends Error {}

/** The operations' answers to a request, as the stages and responders ask for them. */
export class Faults implements MockState {
  /**
   * In replicas on PostgreSQL, a part of the state they share (gateway.ts registers it), so a rule added through one
   * replica holds on every other (decision SB18); one process keeps its rules in memory only (RM19).
   */
  readonly name = "faults";
  private rules: ListedFault[] = [];
  /** Told when a request uses a rule (gateway.ts, in replicas: the state registry's `changed`, so the count is written). */
  onChange: (() => void) | null = null;
  private seq = 0;
  private readonly check = new Ajv2020({ allErrors: false }).compile(RULE_SCHEMA);
  private readonly byOperationId = new Map<string, Route>();

  constructor(
    private readonly contract: Contract,
    private readonly model: StoreModel,
  ) {
    for (const r of contract.router.routes) this.byOperationId.set(r.operationId, r);
  }

  get size(): number {
    return this.rules.length;
  }

  list(): ListedFault[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }

  reset(): void {
    this.clear();
  }

  snapshot(): unknown {
    return { seq: this.seq, rules: this.list() };
  }

  /** Each rule checked as `add` checks it, with its id and use count. */
  restore(data: unknown): void {
    const d = object(data, []);
    if (!Number.isInteger(d.seq) || (d.seq as number) < 0) throw new SnapshotError(["seq"], "must be a whole number");
    const rules = array(d.rules, ["rules"]).map((raw, i): ListedFault => {
      const { id, used, ...rule } = object(raw, ["rules", i]);
      if (typeof id !== "string" || !/^flt_\d+$/.test(id)) throw new SnapshotError(["rules", i, "id"], 'must be "flt_" and a number');
      if (!Number.isInteger(used) || (used as number) < 0) throw new SnapshotError(["rules", i, "used"], "must be a whole number");
      try {
        return { id, ...this.checked(rule), used: used as number };
      } catch (e) {
        if (e instanceof FaultError) throw new SnapshotError(["rules", i], e.message);
        throw e;
      }
    });
    this.rules = rules;
    this.seq = d.seq as number;
  }

  /** Checks and adds a rule; throws FaultError saying what is wrong with it. */
  add(input: unknown): ListedFault {
    const rule = this.checked(input);
    const listed: ListedFault = { id: `flt_${++this.seq}`, ...rule, used: 0 };
    this.rules.push(listed);
    return { ...listed };
  }

  /** `input` as a rule this contract allows; throws FaultError saying what is wrong with it. */
  private checked(input: unknown): FaultRule {
    if (!this.check(input)) {
      const e = this.check.errors![0]!;
      const where = e.instancePath ? e.instancePath.slice(1) : "the rule";
      const what =
        e.schemaPath.startsWith("#/anyOf")
          ? "needs operationId, resource or both"
          : e.schemaPath.startsWith("#/oneOf")
            ? "needs exactly one effect: status, scenario or break_after"
            : e.keyword === "additionalProperties"
              ? `has no field "${(e.params as { additionalProperty: string }).additionalProperty}" (fields: ${Object.keys(RULE_SCHEMA.properties).join(", ")})`
              : e.message;
      throw new FaultError(`${where} ${what}.`);
    }
    const rule = input as FaultRule;
    const route = rule.operationId !== undefined ? this.route(rule.operationId) : undefined;
    if (rule.resource !== undefined && !this.collectionOf(rule.resource)) throw new FaultError(`resource: no collection of the contract has ids like "${rule.resource}".`);
    if (rule.status !== undefined) this.checkStatus(rule.status, route);
    if (rule.scenario !== undefined) this.checkScenario(rule, route);
    if (rule.break_after !== undefined && route && !isStream(route)) throw new FaultError(`break_after: ${rule.operationId} is not an event stream.`);
    return rule;
  }

  /**
   * The status a request is to answer with, taken from the first rule that matches it (and counted), or
   * undefined. `params` are the request's path parameters.
   */
  status(route: Route, params: Record<string, string>, workspaceId: string | undefined): number | undefined {
    return this.take((r) => r.status !== undefined && this.matches(r, route.operationId, Object.values(params), workspaceId))?.status;
  }

  /** The scenario a create request takes from a rule (counted), or undefined. */
  createScenario(route: Route, workspaceId: string | undefined): string | undefined {
    return this.take((r) => r.scenario !== undefined && r.resource === undefined && this.matches(r, route.operationId, [], workspaceId))?.scenario;
  }

  /** The scenario an existing resource takes at its next processing step (counted), or undefined. */
  resourceScenario(id: string, workspaceId: string, scenarios: readonly string[]): string | undefined {
    return this.take((r) => r.scenario !== undefined && r.resource === id && scenarios.includes(r.scenario) && (r.workspace_id === undefined || r.workspace_id === workspaceId))?.scenario;
  }

  /** After how many events an event stream of `id` breaks (counted), or undefined. */
  breakAfter(operationId: string | undefined, id: string, workspaceId: string): number | undefined {
    return this.take((r) => r.break_after !== undefined && this.matches(r, operationId, [id], workspaceId))?.break_after;
  }

  private matches(r: FaultRule, operationId: string | undefined, ids: readonly string[], workspaceId: string | undefined): boolean {
    if (r.operationId !== undefined && r.operationId !== operationId) return false;
    if (r.resource !== undefined && !ids.includes(r.resource)) return false;
    return r.workspace_id === undefined || r.workspace_id === workspaceId;
  }

  /** The first rule `pred` accepts, counted once; a rule whose `times` are used up is dropped. */
  private take(pred: (r: ListedFault) => boolean): ListedFault | undefined {
    if (this.rules.length === 0) return undefined;
    const r = this.rules.find(pred);
    if (!r) return undefined;
    r.used++;
    if (r.times !== undefined && r.used >= r.times) this.rules = this.rules.filter((x) => x !== r);
    this.onChange?.();
    return r;
  }

  private route(operationId: string): Route {
    const route = this.byOperationId.get(operationId);
    if (!route) throw new FaultError(`operationId: the contract has no operation "${operationId}".`);
    return route;
  }

  private checkStatus(status: number, route: Route | undefined): void {
    if (!route) throw new FaultError("status: name the operation (operationId) whose answer it replaces.");
    if (route.successCode === 101) throw new FaultError(`status: ${route.operationId} is a WebSocket upgrade, which a status rule does not reach; break_after breaks its stream.`);
    const documented = Object.keys(route.op.responses ?? {});
    if (!documented.includes(String(status)) && !EDGE_STATUSES.includes(status)) {
      throw new FaultError(`status: ${route.operationId} documents ${documented.join(", ")}, and any operation can meet the edge's ${EDGE_STATUSES.join(", ")}; not ${status}.`);
    }
  }

  private checkScenario(rule: FaultRule, route: Route | undefined): void {
    const plan = route && this.model.plans.get(route);
    const coll = rule.resource !== undefined ? this.collectionOf(rule.resource) : plan?.kind === "create" ? plan.coll : undefined;
    if (!coll?.machine) throw new FaultError(`scenario: name a create operation or a resource (resource) whose collection has a lifecycle.`);
    const known = machineScenarios(coll.machine);
    if (!known.includes(rule.scenario!)) throw new FaultError(`scenario: a ${coll.schema} takes ${known.length ? known.join(", ") : "no scenario"}, not "${rule.scenario}".`);
  }

  /** The top-level collection whose ids look like `id`. */
  collectionOf(id: string): CollectionModel | undefined {
    return [...this.model.collections.values()].find((c) => c.keyPattern !== null && new RegExp(c.keyPattern).test(id));
  }
}

function isStream(route: Route): boolean {
  return Boolean((route.op.responses?.[String(route.successCode)] as Json)?.content?.["text/event-stream"]) || route.template.startsWith("/ws/");
}
