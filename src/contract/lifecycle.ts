// Lifecycles as the contract states them in `x-lifecycle` on resource schemas: a typed reader for a bundled
// contract, and a pure engine that says what happens to a resource in a given state when an operation is called,
// when the service's processing takes a step, when time passes, or when a linked resource moves. Nothing here
// holds a state name: they are all read from the contract, so each lifecycle is written down once.
// Pure: no I/O, no clock (callers pass `now`), no stored state (callers keep the resources).
import {
  asList,
  checkLifecycle,
  durationMs,
  LIFECYCLE_KEY,
  NOW,
  statesOf,
  type LifecycleFacts,
  type OperationFacts,
  type Trigger,
} from "./lifecycle-check.js";

export { LIFECYCLE_KEY, LIFECYCLE_MARKER, NOW, checkLifecycle, durationMs, type Trigger } from "./lifecycle-check.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
export type Fields = Record<string, unknown>;

/** A resource created on entering a state: `link` on the creator names it, `back_link` on it names the creator. */
export interface Creates {
  schema: string;
  link: string;
  back_link: string;
  /** Properties copied from the creator (same name on both). */
  copy: string[];
}

export interface Transition {
  from: string[];
  to: string;
  trigger: Trigger;
  operation?: string;
  scenario?: string;
  after?: string;
  afterMs?: number;
  deadline?: string;
  link?: string;
  schema?: string;
  when?: string[];
  set: Fields;
  creates?: Creates;
}

export interface Machine {
  /** The schema (component) name, e.g. `Analysis`. */
  schema: string;
  /** The state property, e.g. `status`. */
  property: string;
  states: string[];
  initial: string;
  terminal: string[];
  transitions: Transition[];
  /** operationId → the states it is allowed in (409 in the others). */
  requires: Record<string, string[]>;
  /** state → fields set on entering it (`$now` is the time of entry). */
  set: Record<string, Fields>;
  /** state → webhook event types sent on entering it. */
  emits: Record<string, string[]>;
  /** `pattern` of the schema's `id`: operations whose last path parameter has it act on this resource. */
  idPattern?: string;
}

/** A state change, with what the caller writes into the resource and sends. */
export interface Step {
  kind: "transition";
  /** null when the resource is being created. */
  from: string | null;
  to: string;
  trigger: Trigger | "create";
  /** Merge into the resource: the state property, the `set` of `to` and of the transition (`$now` filled in), deadlines of timeouts from `to`. */
  fields: Fields;
  /** Webhook event types to send. */
  emits: string[];
  /** A resource to create and link (see Creates). */
  creates?: Creates;
}

/** The operation is not allowed now: answer 409 with `detail`. */
export interface Conflict {
  kind: "conflict";
  state: string;
  /** The states the operation is allowed in (`requires`), or the states an update may move to from `state`. */
  allowed: string[];
  detail: string;
}

export type Outcome = Step | Conflict | { kind: "none" };

export class LifecycleError extends Error {}

// ---------------------------------------------------------------------------------------------------------------
// Reading a bundled contract

/** Resolves local `$ref`s (`#/components/schemas/X`) of a bundled document, following chains. */
function derefIn(doc: Json, node: Json): Json {
  for (let hops = 0; node && typeof node.$ref === "string" && hops < 20; hops++) {
    if (!node.$ref.startsWith("#/")) throw new LifecycleError(`only local $refs can be read, found ${node.$ref}`);
    node = node.$ref
      .slice(2)
      .split("/")
      .map((s: string) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce((n: Json, key: string) => n?.[key], doc);
  }
  return node;
}

/** A copy of a schema with every local `$ref` inlined (the contract's schemas are not recursive). */
function inline(doc: Json, node: Json, depth = 0): Json {
  if (depth > 50) throw new LifecycleError("schema nesting too deep (recursive $ref?)");
  if (Array.isArray(node)) return node.map((n) => inline(doc, n, depth + 1));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string") return inline(doc, derefIn(doc, node), depth + 1);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(doc, v, depth + 1)]));
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** What the lifecycle checks need to know of each operation of a bundled contract, by operationId. */
export function operationFacts(doc: Json): Record<string, OperationFacts & { path: string; method: string }> {
  const out: Record<string, OperationFacts & { path: string; method: string }> = {};
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op?.operationId) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => derefIn(doc, p));
      const last = [...path.matchAll(/\{([^}]+)\}/g)].pop()?.[1];
      const param = params.find((p) => p?.in === "path" && p.name === last);
      const body = derefIn(doc, derefIn(doc, op.requestBody)?.content?.["application/json"]?.schema);
      out[op.operationId] = {
        path,
        method,
        codes: Object.keys(op.responses ?? {}),
        bodyProperties: Object.keys(body?.properties ?? {}),
        ...(derefIn(doc, param?.schema)?.pattern ? { idPattern: derefIn(doc, param.schema).pattern } : {}),
      };
    }
  }
  return out;
}

/** Turns a checked `x-lifecycle` into a Machine. */
function toMachine(schema: string, raw: Json, states: string[], idPattern: string | undefined): Machine {
  return {
    schema,
    property: raw.property,
    states,
    initial: raw.initial,
    terminal: raw.terminal,
    transitions: raw.transitions.map((t: Json) => ({
      ...t,
      from: asList(t.from),
      set: t.set ?? {},
      ...(t.after !== undefined ? { afterMs: durationMs(t.after) } : {}),
      ...(t.creates ? { creates: { copy: [], ...t.creates } } : {}),
    })),
    requires: raw.requires ?? {},
    set: raw.set ?? {},
    emits: raw.emits ?? {},
    ...(idPattern ? { idPattern } : {}),
  };
}

export interface ReadOptions {
  /** Validates `set` values against their property's schema (e.g. with ajv); returns an error message or undefined. */
  validate?: LifecycleFacts["validate"];
}

/**
 * Every lifecycle of a bundled contract, by schema name. Throws a LifecycleError listing every problem, each
 * named by schema and field (`Analysis: x-lifecycle.transitions[2].to: …`), when one is malformed or disagrees
 * with the contract (an unknown operation, a webhook that does not exist, …).
 */
export function readLifecycles(doc: Json, opts: ReadOptions = {}): Record<string, Machine> {
  const schemas: Record<string, Json> = doc.components?.schemas ?? {};
  const found = Object.entries(schemas).filter(([, s]) => s?.[LIFECYCLE_KEY] !== undefined);
  const properties = Object.fromEntries(found.map(([name, s]) => [name, inline(doc, s.properties ?? {})]));
  const machines = Object.fromEntries(
    found.map(([name, s]) => [name, { states: statesOf(s[LIFECYCLE_KEY], properties[name]) ?? [], properties: Object.keys(properties[name]) }]),
  );
  const operations = operationFacts(doc);
  const webhooks = Object.keys(doc.webhooks ?? {});
  const problems: string[] = [];
  for (const [name, s] of found) {
    // No description: in a generated bundle the marker has already become the state table (lint checks the source).
    const facts: LifecycleFacts = { schema: name, properties: properties[name], operations, webhooks, machines, validate: opts.validate };
    for (const p of checkLifecycle(s[LIFECYCLE_KEY], facts)) problems.push(`${name}: ${formatPath(p.path)}: ${p.message}`);
  }
  if (problems.length) throw new LifecycleError(`x-lifecycle has ${problems.length} problem(s):\n${problems.map((p) => "  " + p).join("\n")}`);
  return Object.fromEntries(
    found.map(([name, s]) => [name, toMachine(name, s[LIFECYCLE_KEY], machines[name]!.states, properties[name].id?.pattern)]),
  );
}

/** `["transitions", 2, "to"]` → `x-lifecycle.transitions[2].to`. */
export function formatPath(path: Array<string | number>): string {
  return path.reduce<string>((s, k) => (typeof k === "number" ? `${s}[${k}]` : `${s}.${k}`), LIFECYCLE_KEY);
}

/**
 * The machine that governs each operation: an operation acts on the resource named by its last path parameter
 * (`getAnalysisTranscript`, `/v1/analyses/{analysis_id}/transcript` → Analysis), matched by the parameter's
 * `pattern` and the schema's `id` pattern. Operations on collections, or on resources without a lifecycle, are absent.
 */
export function machinesByOperation(doc: Json, machines: Record<string, Machine>): Map<string, Machine> {
  const out = new Map<string, Machine>();
  for (const [id, facts] of Object.entries(operationFacts(doc))) {
    const m = Object.values(machines).find((x) => x.idPattern && x.idPattern === facts.idPattern);
    if (m) out.set(id, m);
  }
  return out;
}

/** The machine that governs one operation (see machinesByOperation), or undefined. */
export function machineFor(doc: Json, machines: Record<string, Machine>, operationId: string): Machine | undefined {
  return machinesByOperation(doc, machines).get(operationId);
}

// ---------------------------------------------------------------------------------------------------------------
// The engine

function assertState(m: Machine, state: string): void {
  if (!m.states.includes(state)) throw new LifecycleError(`${quote(state)} is not a state of ${m.schema}.${m.property} (${m.states.join(", ")})`);
}

const quote = (v: unknown) => JSON.stringify(v);
const iso = (ms: number) => new Date(ms).toISOString();

/** Entering `to`: the fields to write and the webhooks to send. */
function enter(m: Machine, from: string | null, to: string, trigger: Step["trigger"], t: Transition | undefined, now: Date): Step {
  const fields: Fields = { [m.property]: to };
  for (const [k, v] of Object.entries({ ...m.set[to], ...t?.set })) fields[k] = v === NOW ? iso(now.getTime()) : structuredClone(v);
  for (const x of m.transitions) {
    if (x.trigger === "timeout" && x.deadline && x.from.includes(to)) fields[x.deadline] = iso(now.getTime() + x.afterMs!);
  }
  return { kind: "transition", from, to, trigger, fields, emits: [...(m.emits[to] ?? [])], ...(t?.creates ? { creates: t.creates } : {}) };
}

/** Takes transition `t` from `state`, or undefined when `t` does not leave `state`. */
export function take(m: Machine, state: string, t: Transition, now: Date): Step | undefined {
  assertState(m, state);
  return t.from.includes(state) ? enter(m, state, t.to, t.trigger, t, now) : undefined;
}

export const isTerminal = (m: Machine, state: string): boolean => m.terminal.includes(state);

/** A new resource: its initial state (or `requested`, when the create request chose another non-terminal state). */
export function initialFields(m: Machine, now: Date, requested?: string): Step {
  const state = requested ?? m.initial;
  assertState(m, state);
  if (isTerminal(m, state)) throw new LifecycleError(`a ${m.schema} cannot be created ${quote(state)}: it is terminal`);
  return enter(m, null, state, "create", undefined, now);
}

/**
 * A call of `operationId` on a resource in `state`. `requested` is the state property's value in the request body
 * of an update (PATCH), if it has one. Order: `requires` (409 outside its states), then an update's requested move
 * (409 when no transition lists it), then an operation transition from `state`; otherwise the operation does its
 * usual work without a state change.
 */
export function onOperation(m: Machine, state: string, operationId: string, opts: { now: Date; requested?: string }): Outcome {
  assertState(m, state);
  const allowed = m.requires[operationId];
  if (allowed && !allowed.includes(state)) {
    return { kind: "conflict", state, allowed, detail: `${operationId} needs ${m.property} ${allowed.join(" or ")}; this ${m.schema} is ${state}.` };
  }
  const updates = m.transitions.filter((t) => t.trigger === "update" && t.operation === operationId);
  if (updates.length && opts.requested !== undefined && opts.requested !== state) {
    assertState(m, opts.requested);
    const t = updates.find((u) => u.from.includes(state) && u.to === opts.requested);
    if (t) return enter(m, state, t.to, t.trigger, t, opts.now);
    const targets = updates.filter((u) => u.from.includes(state)).map((u) => u.to);
    const to = targets.length ? `it can change to ${targets.join(" or ")}` : "it cannot change";
    return { kind: "conflict", state, allowed: targets, detail: `${m.property} cannot change from ${state} to ${opts.requested}; from ${state} ${to}.` };
  }
  const t = m.transitions.find((x) => x.trigger === "operation" && x.operation === operationId && x.from.includes(state));
  return t ? enter(m, state, t.to, t.trigger, t, opts.now) : { kind: "none" };
}

/**
 * The next step of the service's own processing from `state`: the async transition of `scenario` if there is one,
 * else the default one; undefined when processing does not move the resource (terminal, or waiting on something else).
 */
export function nextAsync(m: Machine, state: string, now: Date, scenario?: string): Step | undefined {
  assertState(m, state);
  const async = m.transitions.filter((t) => t.trigger === "async" && t.from.includes(state));
  const t = (scenario !== undefined ? async.find((x) => x.scenario === scenario) : undefined) ?? async.find((x) => x.scenario === undefined);
  return t && enter(m, state, t.to, t.trigger, t, now);
}

/** What moves a resource without anyone's call: the service's processing, a deadline, another resource's state. */
const ON_ITS_OWN: ReadonlySet<Trigger> = new Set<Trigger>(["async", "timeout", "linked"]);

/** Whether a resource of `m` in `state` stays there until someone calls: no transition that runs by itself leaves it. */
export function holds(m: Machine, state: string): boolean {
  return !m.transitions.some((t) => ON_ITS_OWN.has(t.trigger) && t.from.includes(state));
}

/** The timeouts that run while in `state` (each with `afterMs`); when one fires, `take` it. */
export function timeouts(m: Machine, state: string): Transition[] {
  assertState(m, state);
  return m.transitions.filter((t) => t.trigger === "timeout" && t.from.includes(state));
}

/** A move to `to` made outside the API (a person in the dashboard, billing), if the lifecycle has it. */
export function onExternal(m: Machine, state: string, to: string, now: Date): Step | undefined {
  assertState(m, state);
  const t = m.transitions.find((x) => x.trigger === "external" && x.from.includes(state) && x.to === to);
  return t && enter(m, state, t.to, t.trigger, t, now);
}

/** The resource linked from this one (a `linked` transition's `schema`) entered `linkedState`. */
export function onLinked(m: Machine, state: string, schema: string, linkedState: string, now: Date): Step | undefined {
  assertState(m, state);
  const t = m.transitions.find((x) => x.trigger === "linked" && x.schema === schema && x.when!.includes(linkedState) && x.from.includes(state));
  return t && enter(m, state, t.to, t.trigger, t, now);
}

/** The machines that follow resources of `schema`, and through which property: after a resource of `schema` moves, tell them (onLinked). */
export function followers(machines: Record<string, Machine>, schema: string): Array<{ machine: Machine; link: string }> {
  const out: Array<{ machine: Machine; link: string }> = [];
  for (const m of Object.values(machines)) {
    for (const t of m.transitions) {
      if (t.trigger === "linked" && t.schema === schema && !out.some((o) => o.machine === m && o.link === t.link)) out.push({ machine: m, link: t.link! });
    }
  }
  return out;
}

/** Every edge of a machine as `from → to` pairs (for docs and tests). */
export function edges(m: Machine): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const t of m.transitions) for (const f of t.from) if (!out.some(([a, b]) => a === f && b === t.to)) out.push([f, t.to]);
  return out;
}

/** One rule a resource's state puts on a field its lifecycle `set`s (see stateFields). */
export interface StateField {
  field: string;
  /** The state whose `set` names the field. */
  entered: string;
  /** "set": a `$now` time, present; "null": that state not reached yet; else the constant the state sets. */
  must: "set" | "null" | { value: unknown };
}

/**
 * What a resource in `state` holds in the fields its lifecycle sets on entering a state (decision RM17): in that
 * state, a constant has its value and a `$now` time is set (`completed_at` of a completed analysis); in a state
 * that comes before it (reaches it, never reached from it), such a time is still null. Fixtures are checked
 * against it and factories follow it.
 */
export function stateFields(m: Machine, state: string): StateField[] {
  const out: StateField[] = [];
  for (const [entered, fields] of Object.entries(m.set)) {
    for (const [field, set] of Object.entries<unknown>(fields)) {
      if (state === entered) out.push({ field, entered, must: set === "$now" ? "set" : { value: set } });
      else if (set === "$now" && reaches(m, state, entered) && !reaches(m, entered, state)) out.push({ field, entered, must: "null" });
    }
  }
  return out;
}

/** Can a resource in state `from` get to state `to` through the transitions? */
export function reaches(m: Machine, from: string, to: string): boolean {
  const seen = new Set([from]);
  const next = edges(m);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [a, b] of next) if (seen.has(a) && !seen.has(b)) grew = Boolean(seen.add(b));
  }
  return from !== to && seen.has(to);
}
