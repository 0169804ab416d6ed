// Fixtures (`npm start -- --fixtures FILE`, MOCK_FIXTURES; decision MC6): a team's own records, loaded into named
// workspaces, in JSON or YAML:
//
//   keys:                                  # optional: the keys file's format (docs/mock-keys.example.json)
//     - { key: pk_test_dashboard, workspace_id: ws_Dashboard01, plan: pro }
//   workspaces:
//     ws_Dashboard01:                      # a workspace id (the contract's Workspace id pattern)
//       Agent:                             # a collection: the component schema of its records
//         - { id: agt_..., name: ..., ... }
//       Run:
//         - { id: run_..., agent_id: agt_..., ... }
//       Transcript:                        # a child document: one per analysis, naming it (analysis_id)
//         - { analysis_id: anl_..., segments: [...], ... }
//       AnalysisSpeaker:                   # records that name their parent only in its URL: under its id
//         anl_...: [{ label: SPEAKER_00, ... }]
//
// A fixture workspace holds exactly the file's records, instead of the seeded examples; `POST /__mock/reset` brings
// them back. Every record is checked before the mock starts: against its component schema (the contract's JSON
// Schema, as responses are), for an id unique in its collection, for a sub-collection's parent (`analysis_id` of a
// Signal) in the same workspace, and against the reference rules (`x-references`) of its collection's create
// operations: each id there must name a record of that workspace. The first problem refuses the start, naming
// the file, line and column, the record and the rule. Content (a transcript, speakers, signals, alerts) only where
// its parent's `x-completion` promises it, and consistent with it (content-check.ts, decision RM21); fixture options
// in a record's `metadata` (FIXTURE_OPTIONS) take their values. (The states an `x-references` lists are a rule of creating,
// not of what exists: an agent paused after its runs were made is fine.)
import { stateFields } from "../../../contract/lifecycle.js";
import type { RateLimitPolicy } from "../../../contract/policy.js";
import type { Contract, Json } from "../contract/contract-build.js";
import type { JsonPath, JsonSource } from "../state/json-file.js";
import { checkKeys } from "../access/keys-file.js";
import { readTextFile } from "../state/text-file.js";
import type { KeyRecord } from "../access/keys.js";
import { contentProblem, type ContentStory } from "../content/content-check.js";
import { applies, completionOf, type CompletionEntry } from "../store/completion.js";
import type { ChildModel, CollectionModel, StoreModel } from "../store/model.js";
import type { FixtureItem } from "../store/records.js";
import { idsAt, sitesOf, type Site } from "../store/references.js";
import { nameOf } from "../store/store.js";
import { componentSchemaId, createContractAjv } from "../contract/validation.js";

export class FixturesError extends Error {}

export type { FixtureItem, FixtureRecord, FixtureChild } from "../store/records.js";

export interface Fixtures {
  keys: KeyRecord[];
  /** Workspace id → its records, in file order. */
  workspaces: Map<string, FixtureItem[]>;
}

/** Reads a fixtures text with positions, so every error names its line and column (the platform's FixturesFormat). */
export type FixturesReader = (text: string, file: string) => JsonSource;

export function loadFixtures(file: string, contract: Contract, model: StoreModel, policy: RateLimitPolicy, read: FixturesReader): Fixtures {
  return parseFixtures(readTextFile(file, "fixtures file", (m) => new FixturesError(m)), file, contract, model, policy, read);
}

export function parseFixtures(text: string, file: string, contract: Contract, model: StoreModel, policy: RateLimitPolicy, read: FixturesReader): Fixtures {
  const src = read(text, file);
  const fail = (path: JsonPath, msg: string): never => {
    throw new FixturesError(`${src.at(path)}: ${path.length ? path.join(".") + ": " : ""}${msg}`);
  };
  const data = src.data as Json;
  if (!isObject(data)) fail([], 'expected {"workspaces": {…}} (and "keys", optionally)');
  for (const k of Object.keys(data)) if (k !== "keys" && k !== "workspaces") fail([k], 'unknown field; allowed: "keys", "workspaces"');
  const keys = data.keys === undefined ? [] : checkKeys({ data: { keys: data.keys }, at: src.at }, policy, (m) => new FixturesError(m));
  if (!isObject(data.workspaces)) fail(["workspaces"], "expected an object: workspace id → its records by collection");
  const workspacePattern = model.collections.get("Workspace")?.keyPattern;
  const check = new RecordCheck(contract, model);
  const workspaces = new Map<string, FixtureItem[]>();
  for (const [wsId, colls] of Object.entries<Json>(data.workspaces)) {
    if (workspacePattern && !new RegExp(workspacePattern).test(wsId)) fail(["workspaces", wsId], `a workspace id must match ${workspacePattern}`);
    if (!isObject(colls)) fail(["workspaces", wsId], "expected an object: collection (schema name) → list of records");
    workspaces.set(wsId, check.workspace(wsId, colls, (path, msg) => fail(["workspaces", wsId, ...path], msg)));
  }
  return { keys, workspaces };
}

type Fail = (path: JsonPath, msg: string) => never;

/** What a fixture collection holds: records of a collection, or the documents of a child (an analysis's Transcript). */
type Kind = { coll: CollectionModel; child?: undefined } | { child: ChildModel; coll?: undefined };

/** One record read from the file: where it is, what it is, its parent. */
interface Entry {
  item: FixtureItem;
  path: JsonPath;
  label: string;
}

/** Fixture options a record's `metadata` may carry, and the values each takes (null: any string). */
export const FIXTURE_OPTIONS: Record<string, readonly string[] | null> = {
  /** The content generator's seed (content.ts), instead of the record's id. */
  seed: null,
  /** The text a `text` analysis was made from (its content is derived from it). */
  text: null,
  /** `run`: the record moves on through its lifecycle from its state, as a created one does; `rest` (default): it stays as written. */
  lifecycle: ["run", "rest"],
};

/** The checks of one workspace's records: schema, unique ids, parents, references, content. */
class RecordCheck {
  private readonly ajv;
  /** The reference sites of each collection's create operations. */
  private readonly sites = new Map<string, Site[]>();

  constructor(
    private readonly contract: Contract,
    private readonly model: StoreModel,
  ) {
    this.ajv = createContractAjv(contract, false);
    for (const [route, plan] of model.plans) {
      if (plan.kind !== "create") continue;
      const list = this.sites.get(plan.coll.schema) ?? [];
      for (const site of sitesOf(contract, model, route)) if (!list.some((s) => s.path.join(".") === site.path.join("."))) list.push(site);
      this.sites.set(plan.coll.schema, list);
    }
  }

  workspace(wsId: string, colls: Json, fail: Fail): FixtureItem[] {
    const entries: Entry[] = [];
    const keys = new Map<string, Set<string>>();
    for (const [schema, list] of Object.entries<Json>(colls)) {
      const kind = this.kindOf(schema, fail);
      const seen = keys.get(schema) ?? new Set<string>();
      keys.set(schema, seen);
      for (const e of this.entries(schema, kind, list, fail)) {
        const at: Fail = (path, msg) => fail([...e.path, ...path], msg);
        this.schema(schema, e.item.value, e.label, at);
        if (kind.coll) this.lifecycle(kind.coll, e.item.value, at);
        this.options(e.item.value, e.label, at);
        const { key, field } = uniqueKey(kind, e.item);
        if (seen.has(key)) at(field, `${e.label.slice(0, -2)} appears twice`);
        seen.add(key);
        entries.push(e);
      }
    }
    const ids = new Map([...keys].map(([schema, set]) => [schema, new Set([...set].map((k) => k.split("\u0000").pop()!))]));
    for (const e of entries) this.links(e, ids, wsId, (path, msg) => fail([...e.path, ...path], msg));
    new ContentCheck(this.model, entries).check(fail);
    return entries.map((e) => e.item);
  }

  /** A collection of the contract, or a child document of one (`Transcript`). */
  private kindOf(schema: string, fail: Fail): Kind {
    const coll = this.model.collections.get(schema);
    if (coll) return { coll };
    const child = this.model.children.find((c) => c.schema === schema);
    if (child) return { child };
    return fail([schema], `not a collection of the contract; collections: ${[...this.model.collections.keys(), ...this.model.children.map((c) => c.schema)].join(", ")}`);
  }

  /**
   * The records of one collection: a list, or, for records that name their parent only in its URL (an analysis's
   * speakers), an object from the parent's id to its list (to its document, for a child).
   */
  private entries(schema: string, kind: Kind, list: Json, fail: Fail): Entry[] {
    const parentProp = kind.coll ? kind.coll.parent?.property : kind.child.property;
    const parentName = kind.coll ? kind.coll.parent?.schema : kind.child.parent;
    const item = (value: Json, parent: string | null): FixtureItem => (kind.coll ? { coll: kind.coll, parent, value } : { child: kind.child, parent: parent!, value });
    const entry = (value: Json, parent: string | null, path: JsonPath): Entry => ({ item: item(value, parent), path, label: labelOf(schema, kind, value, parent) });
    if (parentName && !parentProp) {
      if (!isObject(list)) fail([schema], `expected an object: the id of each ${nameOf(parentName)} → its ${kind.coll ? `list of ${schema} records` : schema}`);
      return Object.entries<Json>(list).flatMap(([parent, value]) => {
        if (kind.child) return [entry(value, parent, [schema, parent])];
        if (!Array.isArray(value)) fail([schema, parent], `expected a list of ${schema} records`);
        return (value as Json[]).map((v, i) => entry(v, parent, [schema, parent, i]));
      });
    }
    if (!Array.isArray(list)) fail([schema], `expected a list of ${schema} records`);
    return (list as Json[]).map((v, i) => entry(v, parentProp && isObject(v) ? (v[parentProp] ?? null) : null, [schema, i]));
  }

  /** The record against its component schema: the first error, where it is and what the rule says. */
  private schema(schema: string, value: Json, label: string, fail: Fail): void {
    const validate = this.ajv.getSchema(componentSchemaId(schema))!;
    if (validate(value)) return;
    const e = validate.errors![0]!;
    const path = e.instancePath.split("/").slice(1).map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
    const extra = e.keyword === "additionalProperties" ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : "";
    fail(path, `${label}${e.message}${extra} (schema ${schema}, rule "${e.keyword}")`);
  }

  /** The fields its `x-lifecycle` sets on entering a state, against the record's state (stateFields, RM17). */
  private lifecycle(coll: CollectionModel, value: Json, fail: Fail): void {
    const m = coll.machine;
    const state = m ? value[m.property] : undefined;
    if (!m || typeof state !== "string") return;
    for (const { field, entered, must } of stateFields(m, state)) {
      const v = value[field] ?? null;
      const rule = `(x-lifecycle set: ${entered})`;
      if (must === "set" && v === null) fail([field], `${label(coll, value)}must be set in state ${state} ${rule}`);
      if (must === "null" && v !== null) fail([field], `${label(coll, value)}must be null in state ${state}, which comes before ${entered} ${rule}`);
      if (typeof must === "object" && JSON.stringify(v) !== JSON.stringify(must.value)) fail([field], `${label(coll, value)}must be ${JSON.stringify(must.value)} in state ${state} ${rule}`);
    }
  }

  /** The fixture options in its `metadata` take their values (FIXTURE_OPTIONS). */
  private options(value: Json, label: string, fail: Fail): void {
    for (const [name, values] of Object.entries(FIXTURE_OPTIONS)) {
      const v = value?.metadata?.[name];
      if (v !== undefined && values && !values.includes(v)) fail(["metadata", name], `${label}must be ${values.map((x) => JSON.stringify(x)).join(" or ")} (fixture option)`);
    }
  }

  /** A record's parent, and the ids its create operations' `x-references` name, in the same workspace. */
  private links({ item, label }: Entry, ids: Map<string, Set<string>>, wsId: string, fail: Fail): void {
    const has = (schema: string, id: string) => ids.get(schema)?.has(id) ?? false;
    const parentName = item.coll ? item.coll.parent?.schema : item.child.parent;
    const parentProp = item.coll ? item.coll.parent?.property : item.child.property;
    if (parentName && !has(parentName, item.parent!)) {
      fail(parentProp ? [parentProp] : [], `${label}no ${nameOf(parentName)} ${item.parent} in workspace ${wsId} (its parent)`);
    }
    if (!item.coll) return;
    for (const site of this.sites.get(item.coll.schema) ?? []) {
      const target = this.model.collections.get(site.schema);
      if (!target || target.parent) continue;
      for (const [where, id] of idsAt(item.value, site.path)) {
        if (!has(site.schema, id)) fail(where.split("."), `${label}no ${nameOf(site.schema)} ${id} in workspace ${wsId} (x-references: ${site.schema})`);
      }
    }
  }
}

/** What makes a record unique, and the field that says it: its key (under its parent, when only its URL names it), a child's parent. */
function uniqueKey(kind: Kind, item: FixtureItem): { key: string; field: JsonPath } {
  if (kind.child) return { key: item.parent!, field: kind.child.property ? [kind.child.property] : [] };
  const scoped = kind.coll.parent && !kind.coll.parent.property;
  return { key: `${scoped ? item.parent : ""}\u0000${item.value[kind.coll.key]}`, field: [kind.coll.key] };
}

/**
 * Content (records of an operation the parent's `x-completion` names) only where it promises it: in its state,
 * when its `when` holds; then consistent with the parent and the rest of the content (content-check.ts).
 */
class ContentCheck {
  private readonly parents = new Map<string, Json>();

  constructor(
    private readonly model: StoreModel,
    private readonly entries: readonly Entry[],
  ) {
    for (const { item } of entries) if (item.coll && !item.coll.parent) this.parents.set(`${item.coll.schema}\u0000${item.value[item.coll.key]}`, item.value);
  }

  check(fail: Fail): void {
    const promised = this.entries.flatMap((e) => {
      const entry = this.promise(e, (path, msg) => fail([...e.path, ...path], msg));
      return entry ? [{ e, by: entry.by }] : [];
    });
    for (const { e, by } of promised) {
      const mine = promised.filter((x) => x.e.item.parent === e.item.parent);
      const story: ContentStory = {
        analysis: this.where(e.item).parent!,
        transcript: mine.find((x) => x.by === "transcript")?.e.item.value,
        signals: mine.filter((x) => x.by === "signals").map((x) => x.e.item.value),
      };
      const p = contentProblem(by, e.item.value, story);
      if (p) fail([...e.path, ...p.path], `${e.label}${p.message}`);
    }
  }

  /** The parent's schema and record, and the operation that shows this record. */
  private where(item: FixtureItem): { schema: string; parent: Json | undefined; operation: string | undefined } {
    const schema = item.coll ? item.coll.parent?.schema : item.child.parent;
    const operation = item.coll ? [...this.model.plans].find(([, p]) => p.kind === "list" && p.coll === item.coll)?.[0].operationId : item.child.route.operationId;
    return { schema: schema ?? "", parent: schema ? this.parents.get(`${schema}\u0000${item.parent}`) : undefined, operation };
  }

  /** The `x-completion` entry promising this record's content, or null when its operation is not content. */
  private promise(e: Entry, fail: Fail): CompletionEntry | null {
    const { schema, parent, operation } = this.where(e.item);
    const m = this.model.collections.get(schema)?.machine;
    if (!parent || !m || !operation) return null;
    const states = m.states.filter((s) => completionOf(this.model, schema, s).some((x) => x.operation === operation));
    if (!states.length) return null;
    const state = parent[m.property];
    const entry = completionOf(this.model, schema, state).find((x) => x.operation === operation);
    const who = `${nameOf(schema)} ${e.item.parent}`;
    if (!entry) fail([], `${e.label}${who} is ${state}; ${operation} has content only in state ${states.join(" or ")} (x-completion)`);
    if (!applies(entry!, parent)) fail([], `${e.label}${who} did not ask for them: ${operation} has content only when ${JSON.stringify(entry!.when)} (x-completion ${state})`);
    return entry!;
  }
}

/** How errors name a record: `analysis anl_…: `, `transcript of analysis anl_…: `. */
function labelOf(schema: string, kind: Kind, value: Json, parent: string | null): string {
  if (kind.child) return `${nameOf(schema)} of ${nameOf(kind.child.parent)} ${parent}: `;
  return label(kind.coll, value);
}

function label(coll: CollectionModel, value: Json): string {
  const key = isObject(value) ? value[coll.key] : undefined;
  return typeof key === "string" ? `${nameOf(coll.schema)} ${key}: ` : "";
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
