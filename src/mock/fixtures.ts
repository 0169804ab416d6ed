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
//
// A fixture workspace holds exactly the file's records, instead of the seeded examples; `POST /__mock/reset` brings
// them back. Every record is checked before the mock starts: against its component schema (the contract's JSON
// Schema, as responses are), for an id unique in its collection, for a sub-collection's parent (`analysis_id` of a
// Signal) in the same workspace, and against the reference rules (`x-references`) of its collection's create
// operations: each id there must name a record of that workspace. The first problem refuses the start, naming
// the file, line and column, the record and the rule. (The states an `x-references` lists are a rule of creating,
// not of what exists: an agent paused after its runs were made is fine.)
import { LineCounter, parseDocument, type Node } from "yaml";
import { stateFields } from "../lifecycle.js";
import type { RateLimitPolicy } from "../policy.js";
import type { Contract, Json } from "./contract.js";
import type { JsonPath, JsonSource } from "./json-file.js";
import { checkKeys } from "./keys-file.js";
import { readTextFile } from "./text-file.js";
import type { KeyRecord } from "./keys.js";
import type { CollectionModel, StoreModel } from "./store/model.js";
import type { FixtureRecord } from "./store/records.js";
import { idsAt, sitesOf, type Site } from "./store/references.js";
import { nameOf } from "./store/store.js";
import { componentSchemaId, createContractAjv } from "./validation.js";

export class FixturesError extends Error {}

export type { FixtureRecord } from "./store/records.js";

export interface Fixtures {
  keys: KeyRecord[];
  /** Workspace id → its records, in file order. */
  workspaces: Map<string, FixtureRecord[]>;
}

export function loadFixtures(file: string, contract: Contract, model: StoreModel, policy: RateLimitPolicy): Fixtures {
  return parseFixtures(readTextFile(file, "fixtures file", (m) => new FixturesError(m)), file, contract, model, policy);
}

/** Parses JSON or YAML (JSON is YAML) with positions, so every error names its line and column. */
function source(text: string, file: string): JsonSource {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const p = lc.linePos(err.pos[0]);
    throw new FixturesError(`${file}:${p.line}:${p.col}: not JSON or YAML: ${err.message.split("\n")[0]}`);
  }
  return {
    data: doc.toJS({ maxAliasCount: 100 }),
    at(path: JsonPath) {
      const node = (path.length ? doc.getIn(path as Array<string | number>, true) : doc.contents) as Node | undefined;
      const p = lc.linePos(node?.range?.[0] ?? 0);
      return `${file}:${p.line}:${p.col}`;
    },
  };
}

export function parseFixtures(text: string, file: string, contract: Contract, model: StoreModel, policy: RateLimitPolicy): Fixtures {
  const src = source(text, file);
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
  const workspaces = new Map<string, FixtureRecord[]>();
  for (const [wsId, colls] of Object.entries<Json>(data.workspaces)) {
    if (workspacePattern && !new RegExp(workspacePattern).test(wsId)) fail(["workspaces", wsId], `a workspace id must match ${workspacePattern}`);
    if (!isObject(colls)) fail(["workspaces", wsId], "expected an object: collection (schema name) → list of records");
    workspaces.set(wsId, check.workspace(wsId, colls, (path, msg) => fail(["workspaces", wsId, ...path], msg)));
  }
  return { keys, workspaces };
}

type Fail = (path: JsonPath, msg: string) => never;

/** The checks of one workspace's records: schema, unique ids, parents, references. */
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

  workspace(wsId: string, colls: Json, fail: Fail): FixtureRecord[] {
    const records: FixtureRecord[] = [];
    const ids = new Map<string, Set<string>>();
    for (const [schema, list] of Object.entries<Json>(colls)) {
      const coll = this.model.collections.get(schema);
      if (!coll) fail([schema], `not a collection of the contract; collections: ${[...this.model.collections.keys()].join(", ")}`);
      if (coll!.parent && !coll!.parent.property) fail([schema], `records of ${schema} name their parent only in its URL, so a fixture cannot hold them`);
      if (!Array.isArray(list)) fail([schema], `expected a list of ${schema} records`);
      const seen = ids.get(schema) ?? new Set<string>();
      ids.set(schema, seen);
      (list as Json[]).forEach((value, i) => {
        this.schema(coll!, value, (path, msg) => fail([schema, i, ...path], msg));
        this.lifecycle(coll!, value, (path, msg) => fail([schema, i, ...path], msg));
        const key = value[coll!.key];
        if (seen.has(key)) fail([schema, i, coll!.key], `${nameOf(schema)} ${key} appears twice`);
        seen.add(key);
        records.push({ coll: coll!, parent: coll!.parent ? value[coll!.parent.property!] : null, value });
      });
    }
    records.forEach((r) => this.links(r, ids, wsId, (path, msg) => fail([r.coll.schema, (colls[r.coll.schema] as Json[]).indexOf(r.value), ...path], msg)));
    return records;
  }

  /** The record against its component schema: the first error, where it is and what the rule says. */
  private schema(coll: CollectionModel, value: Json, fail: Fail): void {
    const validate = this.ajv.getSchema(componentSchemaId(coll.schema))!;
    if (validate(value)) return;
    const e = validate.errors![0]!;
    const path = e.instancePath.split("/").slice(1).map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
    const extra = e.keyword === "additionalProperties" ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : "";
    fail(path, `${label(coll, value)}${e.message}${extra} (schema ${coll.schema}, rule "${e.keyword}")`);
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

  /** A sub-collection's parent, and the ids its create operations' `x-references` name, in the same workspace. */
  private links(r: FixtureRecord, ids: Map<string, Set<string>>, wsId: string, fail: Fail): void {
    const has = (schema: string, id: string) => ids.get(schema)?.has(id) ?? false;
    if (r.coll.parent && !has(r.coll.parent.schema, r.parent!)) {
      fail([r.coll.parent.property!], `${label(r.coll, r.value)}no ${nameOf(r.coll.parent.schema)} ${r.parent} in workspace ${wsId} (its parent)`);
    }
    for (const site of this.sites.get(r.coll.schema) ?? []) {
      const target = this.model.collections.get(site.schema);
      if (!target || target.parent) continue;
      for (const [where, id] of idsAt(r.value, site.path)) {
        if (!has(site.schema, id)) fail(where.split("."), `${label(r.coll, r.value)}no ${nameOf(site.schema)} ${id} in workspace ${wsId} (x-references: ${site.schema})`);
      }
    }
  }
}

function label(coll: CollectionModel, value: Json): string {
  const key = isObject(value) ? value[coll.key] : undefined;
  return typeof key === "string" ? `${nameOf(coll.schema)} ${key}: ` : "";
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
