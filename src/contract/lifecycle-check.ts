// The grammar of `x-lifecycle` and every check of it, in one place. Two callers gather the facts a check needs
// and hand them over: `readLifecycles` (src/contract/lifecycle.ts) from a bundled contract, and the lint rule
// `policy/lifecycle` (scripts/redocly/policy-plugin.mjs) from the source files while Redocly walks them. So the
// lint and the runtime accept exactly the same contracts. Pure: no I/O.
//
// The grammar (spec/README.md has the reference):
//   x-lifecycle:
//     property: status                    the state field; its enum is the set of states
//     initial: queued                     the state a new resource starts in
//     terminal: [completed, failed]       final states: no transition leaves them
//     transitions:                        each { from: state | [state], to: state, trigger: …, set?, creates? }
//     requires: { operationId: [state] }  the operation answers 409 in every other state
//     set: { state: { property: value } } fields the server sets on entering a state ($now = the time of entry)
//     emits: { state: [webhook] }          webhooks sent on entering a state (creation included)

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Raw = any;

export const LIFECYCLE_KEY = "x-lifecycle";
export const LIFECYCLE_MARKER = "<!-- x-lifecycle -->";
/** A `set` value meaning "the time of the transition". */
export const NOW = "$now";

/** What makes a transition happen, and the fields each kind takes besides from, to, trigger, set and creates. */
export const TRIGGER_FIELDS = {
  /** The service's own processing; `scenario` marks an alternative outcome (without one: the default). */
  async: { required: [], optional: ["scenario"] },
  /** A call of `operation` on the resource. */
  operation: { required: ["operation"], optional: [] },
  /** `operation` (a PATCH) writing the state property; a change no transition lists answers 409. */
  update: { required: ["operation"], optional: [] },
  /** `after` (an ISO 8601 duration) in the `from` state; `deadline` is the date-time property that shows when. */
  timeout: { required: ["after"], optional: ["deadline"] },
  /** Something outside this API (a person in the dashboard, billing, support). */
  external: { required: [], optional: [] },
  /** The resource named by this resource's property `link`, of schema `schema`, entering one of `when`. */
  linked: { required: ["link", "schema", "when"], optional: [] },
} as const;
export type Trigger = keyof typeof TRIGGER_FIELDS;
const TRIGGERS = Object.keys(TRIGGER_FIELDS) as Trigger[];
const COMMON_FIELDS = ["from", "to", "trigger", "set", "creates"];
const TOP_FIELDS = ["property", "initial", "terminal", "transitions", "requires", "set", "emits"];
const CREATES_FIELDS = ["schema", "link", "back_link", "copy"];

/** What a check needs to know about one operation of the contract. */
export interface OperationFacts {
  /** Documented response codes. */
  codes: string[];
  /** Properties of its JSON request body, if it has one. */
  bodyProperties: string[];
  /** `pattern` of its last path parameter: the resource it acts on. */
  idPattern?: string;
}

/** Everything outside the `x-lifecycle` object that a check looks at. */
export interface LifecycleFacts {
  /** Name of the schema (the component name). */
  schema: string;
  /** The schema's `description`: it must hold the marker where the generated state table goes. */
  description?: string;
  /** The schema's properties, `$ref`s inlined. */
  properties: Record<string, Raw>;
  operations: Record<string, OperationFacts>;
  webhooks: string[];
  /** Every schema with an `x-lifecycle` (this one included): its states and property names. */
  machines: Record<string, { states: string[]; properties: string[] }>;
  /** Validates a value against a (inlined) schema; returns an error message or undefined. Without it, `set` values are not checked. */
  validate?: (schema: Raw, value: unknown) => string | undefined;
}

export interface Problem {
  /** Where in the `x-lifecycle` object: `["transitions", 2, "to"]`. */
  path: Array<string | number>;
  message: string;
}

/** The states of a machine: the enum of its state property (undefined when there is none to read). */
export function statesOf(raw: Raw, properties: Record<string, Raw>): string[] | undefined {
  const enumValues = properties[raw?.property]?.enum;
  return Array.isArray(enumValues) && enumValues.every((v) => typeof v === "string") ? enumValues : undefined;
}

/** `from` as a list, whether written as one state or several. */
export const asList = (v: Raw): Raw[] => (Array.isArray(v) ? v : [v]);

/**
 * An ISO 8601 duration in days, hours, minutes and seconds (`P3D`, `PT72H`, `PT1H30M`) in milliseconds, or
 * undefined. Written by hand: years and months have no fixed length, so only the fixed units are accepted, and the
 * libraries that parse durations (Temporal) are not in Node 20.
 */
export function durationMs(text: unknown): number | undefined {
  const m = typeof text === "string" ? /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text) : null;
  if (!m || text === "P" || (text as string).endsWith("T")) return undefined;
  const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  return (((d * 24 + h) * 60 + min) * 60 + s) * 1000;
}

const quote = (v: unknown) => JSON.stringify(v);
const listOf = (xs: readonly string[]) => xs.join(", ");
const isObject = (v: unknown): v is Record<string, Raw> => !!v && typeof v === "object" && !Array.isArray(v);

class Collector {
  readonly problems: Problem[] = [];
  add(path: Array<string | number>, message: string) {
    this.problems.push({ path, message });
  }
  unknownKeys(node: Record<string, Raw>, allowed: readonly string[], path: Array<string | number>) {
    for (const k of Object.keys(node)) if (!allowed.includes(k)) this.add([...path, k], `unknown field ${quote(k)}; allowed: ${listOf(allowed)}`);
  }
}

/** Every problem of one `x-lifecycle` object; empty when it is well-formed and agrees with the contract. */
export function checkLifecycle(raw: unknown, facts: LifecycleFacts): Problem[] {
  const c = new Collector();
  if (!isObject(raw)) {
    c.add([], "x-lifecycle must be an object");
    return c.problems;
  }
  c.unknownKeys(raw, TOP_FIELDS, []);
  const states = checkProperty(c, raw, facts);
  if (!states) return c.problems;
  const state = (v: unknown, path: Array<string | number>, what: string) => {
    if (typeof v !== "string" || !states.includes(v)) c.add(path, `${what} ${quote(v)} is not a state of ${raw.property} (${listOf(states)})`);
  };
  state(raw.initial, ["initial"], "initial");
  if (!Array.isArray(raw.terminal) || raw.terminal.length === 0) c.add([], "terminal must list at least one final state");
  else raw.terminal.forEach((s: unknown, i: number) => state(s, ["terminal", i], "terminal state"));
  if (raw.terminal?.includes?.(raw.initial)) c.add(["initial"], `the initial state ${quote(raw.initial)} cannot be terminal`);
  if (!Array.isArray(raw.transitions) || raw.transitions.length === 0) {
    c.add([], "transitions must list at least one transition");
    return c.problems;
  }
  raw.transitions.forEach((t: Raw, i: number) => checkTransition(c, t, ["transitions", i], raw, states, facts, state));
  // The graph checks need well-formed states and transitions.
  if (!c.problems.length) {
    checkDeterminism(c, raw);
    checkGraph(c, raw, states);
  }
  checkRequires(c, raw, states, facts, state);
  checkSet(c, raw, states, facts);
  checkEmits(c, raw, facts, state);
  if (facts.description !== undefined && !facts.description.includes(LIFECYCLE_MARKER)) {
    c.add([], `the description of ${facts.schema} must hold the marker ${LIFECYCLE_MARKER}, where generate renders the state table`);
  }
  return c.problems;
}

function checkProperty(c: Collector, raw: Raw, facts: LifecycleFacts): string[] | undefined {
  if (typeof raw.property !== "string") {
    c.add([], "property (the name of the state field) is required");
    return undefined;
  }
  if (!(raw.property in facts.properties)) {
    c.add(["property"], `${facts.schema} has no property ${quote(raw.property)}`);
    return undefined;
  }
  const states = statesOf(raw, facts.properties);
  if (!states) c.add(["property"], `${facts.schema}.${raw.property} must be a string enum: its values are the states`);
  return states;
}

type StateCheck = (v: unknown, path: Array<string | number>, what: string) => void;

function checkTransition(c: Collector, t: Raw, path: Array<string | number>, raw: Raw, states: string[], facts: LifecycleFacts, state: StateCheck) {
  if (!isObject(t)) return c.add(path, "a transition must be an object");
  if (!TRIGGERS.includes(t.trigger)) return c.add(path, `trigger must be one of ${listOf(TRIGGERS)} (found ${quote(t.trigger)})`);
  const kind = TRIGGER_FIELDS[t.trigger as Trigger];
  c.unknownKeys(t, [...COMMON_FIELDS, ...kind.required, ...kind.optional], path);
  for (const f of kind.required) if (t[f] === undefined) c.add(path, `a ${t.trigger} transition needs ${quote(f)}`);
  const from = asList(t.from);
  if (from.length === 0) c.add([...path, "from"], "from must name at least one state");
  from.forEach((s, i) => state(s, Array.isArray(t.from) ? [...path, "from", i] : [...path, "from"], "from"));
  state(t.to, [...path, "to"], "to");
  if (from.includes(t.to)) c.add([...path, "to"], `a transition cannot lead from ${quote(t.to)} to itself`);
  for (const s of from) if (raw.terminal?.includes?.(s)) c.add([...path, "from"], `${quote(s)} is terminal: no transition may leave it`);
  if (t.scenario !== undefined && (typeof t.scenario !== "string" || !/^[a-z][a-z0-9_]*$/.test(t.scenario))) {
    c.add([...path, "scenario"], "scenario must be a snake_case name");
  }
  if (t.operation !== undefined) checkTransitionOperation(c, t, path, raw, facts);
  if (t.after !== undefined && !durationMs(t.after)) c.add([...path, "after"], `after must be an ISO 8601 duration in days, hours, minutes or seconds, like PT72H (found ${quote(t.after)})`);
  if (t.deadline !== undefined) checkDateTimeProperty(c, t.deadline, [...path, "deadline"], facts);
  if (t.trigger === "linked") checkLinked(c, t, path, facts);
  if (t.creates !== undefined) checkCreates(c, t.creates, [...path, "creates"], facts);
  if (t.set !== undefined) checkFields(c, t.set, [...path, "set"], raw, facts);
}

function checkTransitionOperation(c: Collector, t: Raw, path: Array<string | number>, raw: Raw, facts: LifecycleFacts) {
  const op = checkOperation(c, t.operation, [...path, "operation"], facts);
  if (!op) return;
  if (t.trigger === "update" && !op.bodyProperties.includes(raw.property)) {
    c.add([...path, "operation"], `${t.operation} is an update trigger, but its request body has no property ${quote(raw.property)}`);
  }
  const allowed = raw.requires?.[t.operation];
  if (Array.isArray(allowed)) {
    for (const s of asList(t.from)) {
      if (!allowed.includes(s)) c.add([...path, "from"], `${t.operation} requires ${listOf(allowed)}, so it can never move the resource from ${quote(s)}`);
    }
  }
}

/** An operation named by the lifecycle exists and acts on this resource (its last path parameter is this schema's id). */
function checkOperation(c: Collector, id: unknown, path: Array<string | number>, facts: LifecycleFacts): OperationFacts | undefined {
  const op = typeof id === "string" ? facts.operations[id] : undefined;
  if (!op) {
    c.add(path, `no operation has operationId ${quote(id)}`);
    return undefined;
  }
  const own = facts.properties.id?.pattern;
  if (!op.idPattern || op.idPattern !== own) {
    c.add(path, `${id} does not act on a ${facts.schema}: its last path parameter's pattern (${op.idPattern ?? "none"}) is not ${facts.schema}.id's (${own ?? "none"})`);
  }
  return op;
}

function checkDateTimeProperty(c: Collector, name: unknown, path: Array<string | number>, facts: LifecycleFacts) {
  const schema = typeof name === "string" ? facts.properties[name] : undefined;
  if (!schema) return c.add(path, `${facts.schema} has no property ${quote(name)}`);
  const types = asList(schema.type);
  if (!types.includes("string") || schema.format !== "date-time") c.add(path, `${facts.schema}.${name} must be a date-time string to hold a time`);
}

function checkLinked(c: Collector, t: Raw, path: Array<string | number>, facts: LifecycleFacts) {
  if (t.link !== undefined && !(t.link in facts.properties)) c.add([...path, "link"], `${facts.schema} has no property ${quote(t.link)}`);
  const other = facts.machines[t.schema];
  if (t.schema !== undefined && !other) return c.add([...path, "schema"], `${quote(t.schema)} is not a schema with an x-lifecycle`);
  if (!other) return;
  if (!Array.isArray(t.when) || t.when.length === 0) return c.add(path, "when must list states of the linked schema");
  t.when.forEach((s: unknown, i: number) => {
    if (!other.states.includes(s as string)) c.add([...path, "when", i], `${quote(s)} is not a state of ${t.schema} (${listOf(other.states)})`);
  });
}

function checkCreates(c: Collector, cr: Raw, path: Array<string | number>, facts: LifecycleFacts) {
  if (!isObject(cr)) return c.add(path, "creates must be an object: {schema, link, back_link, copy?}");
  c.unknownKeys(cr, CREATES_FIELDS, path);
  const other = facts.machines[cr.schema];
  if (!other) return c.add(path, `creates.schema ${quote(cr.schema)} is not a schema with an x-lifecycle`);
  if (!(cr.link in facts.properties)) c.add(path, `creates.link ${quote(cr.link)} is not a property of ${facts.schema}`);
  if (!other.properties.includes(cr.back_link)) c.add(path, `creates.back_link ${quote(cr.back_link)} is not a property of ${cr.schema}`);
  for (const p of cr.copy ?? []) {
    if (!(p in facts.properties) || !other.properties.includes(p)) c.add([...path, "copy"], `${quote(p)} must be a property of both ${facts.schema} and ${cr.schema}`);
  }
}

/** From any state, one default async step at most, and one transition per operation (or per target, for updates). */
function checkDeterminism(c: Collector, raw: Raw) {
  const seen = new Map<string, number>();
  raw.transitions.forEach((t: Raw, i: number) => {
    const key =
      t.trigger === "async" ? `async ${t.scenario ?? ""}` : t.trigger === "operation" ? `operation ${t.operation}` : t.trigger === "update" ? `update ${t.operation} ${t.to}` : undefined;
    if (!key) return;
    for (const s of asList(t.from)) {
      const other = seen.get(`${s} ${key}`);
      if (other !== undefined) {
        const what = t.trigger === "async" ? (t.scenario ? `async transition with scenario ${quote(t.scenario)}` : "default (scenario-less) async transition") : `${t.operation} transition`;
        c.add(["transitions", i], `${quote(s)} already has a ${what} (transitions[${other}])`);
      }
      seen.set(`${s} ${key}`, i);
    }
  });
}

/** Every state is reachable from `initial`, and every state can reach a terminal one. */
function checkGraph(c: Collector, raw: Raw, states: string[]) {
  const next = new Map<string, Set<string>>(states.map((s) => [s, new Set()]));
  for (const t of raw.transitions) for (const s of asList(t.from)) next.get(s)!.add(t.to);
  const closure = (start: string[], step: (s: string) => Iterable<string>) => {
    const seen = new Set(start);
    for (const queue = [...start]; queue.length; ) for (const n of step(queue.pop()!)) if (!seen.has(n)) seen.add(n), queue.push(n);
    return seen;
  };
  const reachable = closure([raw.initial], (s) => next.get(s) ?? []);
  for (const s of states) if (!reachable.has(s)) c.add(["transitions"], `state ${quote(s)} cannot be reached from ${quote(raw.initial)}`);
  const ending = closure(raw.terminal, (s) => states.filter((p) => next.get(p)!.has(s)));
  for (const s of states) if (!ending.has(s)) c.add(["transitions"], `state ${quote(s)} can never reach a terminal state (${listOf(raw.terminal)})`);
}

function checkRequires(c: Collector, raw: Raw, states: string[], facts: LifecycleFacts, state: StateCheck) {
  if (raw.requires === undefined) return;
  if (!isObject(raw.requires)) return c.add(["requires"], "requires maps operationIds to the states they are allowed in");
  for (const [id, allowed] of Object.entries(raw.requires)) {
    const path = ["requires", id];
    const op = checkOperation(c, id, path, facts);
    if (op && !op.codes.includes("409")) c.add(path, `${id} answers 409 outside ${listOf(asList(allowed))}, so it must document a 409 response`);
    if (!Array.isArray(allowed) || allowed.length === 0) c.add(path, "list the states the operation is allowed in");
    else allowed.forEach((s, i) => state(s, [...path, i], "required state"));
    if (Array.isArray(allowed) && states.every((s) => allowed.includes(s))) c.add(path, `${id} is allowed in every state: drop it from requires`);
  }
}

/** The top-level `set`, keyed by state. */
function checkSet(c: Collector, raw: Raw, states: string[], facts: LifecycleFacts) {
  if (raw.set === undefined) return;
  if (!isObject(raw.set)) return c.add(["set"], "set maps states to the fields set on entering them");
  for (const [s, fields] of Object.entries(raw.set)) {
    if (!states.includes(s)) c.add(["set", s], `${quote(s)} is not a state of ${raw.property}`);
    checkFields(c, fields, ["set", s], raw, facts);
  }
}

function checkFields(c: Collector, fields: Raw, path: Array<string | number>, raw: Raw, facts: LifecycleFacts) {
  if (!isObject(fields)) return c.add(path, "fields to set must be an object of property: value");
  for (const [name, value] of Object.entries(fields)) {
    const schema = facts.properties[name];
    if (!schema) c.add([...path, name], `${facts.schema} has no property ${quote(name)}`);
    else if (name === raw.property) c.add([...path, name], `${name} is the state itself: the transition sets it`);
    else if (value === NOW) checkDateTimeProperty(c, name, [...path, name], facts);
    else {
      const error = facts.validate?.(schema, value);
      if (error) c.add([...path, name], `${quote(value)} is not a valid ${facts.schema}.${name}: ${error}`);
    }
  }
}

function checkEmits(c: Collector, raw: Raw, facts: LifecycleFacts, state: StateCheck) {
  if (raw.emits === undefined) return;
  if (!isObject(raw.emits)) return c.add(["emits"], "emits maps states to the webhooks sent on entering them");
  for (const [s, names] of Object.entries(raw.emits)) {
    state(s, ["emits", s], "emits key");
    if (!Array.isArray(names) || names.length === 0) {
      c.add(["emits", s], "list the webhook event types sent on entering the state");
      continue;
    }
    names.forEach((n, i) => {
      if (!facts.webhooks.includes(n)) c.add(["emits", s, i], `${quote(n)} is not a webhook of the contract (${listOf(facts.webhooks)})`);
    });
  }
}

// `x-references` on a request property whose value is the id of another resource (decision LC12):
//   x-references:
//     schema: Agent          the resource schema the id names; an id not in the workspace answers 400
//     states: [active]       optional: the states (of that schema's x-lifecycle) it must be in; any other, 409
// On a string property, or on the string items of an array (each item is an id).
export const REFERENCES_KEY = "x-references";

export interface ReferenceFacts {
  /** The annotated schema itself (its `type`). */
  node: Record<string, Raw>;
  /** Every component schema's name. */
  schemas: readonly string[];
  /** The states of each schema with an x-lifecycle. */
  machines: Record<string, { states: string[] }>;
}

/** Every problem of one `x-references` object; empty when it is well-formed and names what exists. */
export function checkReference(raw: unknown, facts: ReferenceFacts): Problem[] {
  const c = new Collector();
  if (!isObject(raw)) {
    c.add([], "x-references is an object: { schema, states? }");
    return c.problems;
  }
  c.unknownKeys(raw, ["schema", "states"], []);
  const types = asList(facts.node.type);
  if (!types.includes("string") || types.some((t) => t !== "string" && t !== "null")) c.add([], `x-references belongs on a string property (an id), not on ${quote(String(facts.node.type))}`);
  if (typeof raw.schema !== "string" || !facts.schemas.includes(raw.schema)) {
    c.add(["schema"], `schema names the component schema the id refers to; ${quote(String(raw.schema))} is not one`);
    return c.problems;
  }
  if (raw.states === undefined) return c.problems;
  const machine = facts.machines[raw.schema];
  if (!machine) return (c.add(["states"], `${raw.schema} has no x-lifecycle, so it has no states to require`), c.problems);
  if (!Array.isArray(raw.states) || raw.states.length === 0) return (c.add(["states"], "states is a non-empty list of states"), c.problems);
  raw.states.forEach((s: Raw, i: number) => {
    if (!machine.states.includes(s)) c.add(["states", i], `${quote(String(s))} is not a state of ${raw.schema}; its states: ${listOf(machine.states)}`);
  });
  if (new Set(raw.states).size !== raw.states.length) c.add(["states"], "states lists a state twice");
  return c.problems;
}
