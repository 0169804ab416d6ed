// What every workspace starts with: the contract's own examples, as records. A collection's records are the
// named examples of its item GET (default first), then the items of its list examples; a record seen twice keeps
// its first version, so a list item and its GET agree. Example ids are kept, so the ids the docs and examples
// show work in every workspace; only the examples' workspace id becomes the workspace's own.
import type { Contract, Json, Route } from "../contract/contract-build.js";
import { applies, completionOf, summaryOf } from "./completion.js";
import type { CollectionModel, StoreModel } from "./model.js";

export interface SeedRecord {
  /** Collection (item schema) name. */
  coll: string;
  parent: string | null;
  value: Json;
}

export interface SeedChild {
  schema: string;
  parent: string;
  value: Json;
}

export interface Seed {
  records: SeedRecord[];
  children: SeedChild[];
  /** Singleton path → its value. */
  singletons: Record<string, Json>;
}

/** Every example value of a route's success response, default first. */
function responseExamples(contract: Contract, route: Route): Json[] {
  const media = contract.deref(route.op.responses?.[String(route.successCode)])?.content?.["application/json"];
  if (!media) return [];
  const named = Object.values<Json>(media.examples ?? {}).map((e) => contract.deref(e)?.value);
  return [...named, media.example].filter((v) => v !== undefined);
}

/** The example value of a route's path parameter (`anl_01HZX…` for `analysis_id`). */
function paramExample(contract: Contract, route: Route, name: string): string | null {
  const p = route.parameters.find((x) => x.in === "path" && x.name === name);
  if (!p) return null;
  const schema = contract.deref(p.schema);
  const v = p.example ?? Object.values<Json>(p.examples ?? {}).map((e) => contract.deref(e)?.value)[0] ?? schema?.examples?.[0] ?? schema?.example;
  return typeof v === "string" ? v : null;
}

function recordsOf(model: StoreModel, coll: CollectionModel): SeedRecord[] {
  const { contract } = model;
  const routes = contract.router.routes;
  const itemGet = routes.find((r) => r.method === "get" && r.template === coll.itemPath);
  const lists = routes.filter((r) => model.plans.get(r)?.kind === "list" && (model.plans.get(r) as { coll: CollectionModel }).coll === coll);
  const found: SeedRecord[] = [];
  const seen = new Set<string>();
  const add = (value: Json, route: Route) => {
    if (!value || typeof value !== "object" || typeof value[coll.key] !== "string") return;
    const parent = coll.parent ? ((coll.parent.property ? value[coll.parent.property] : null) ?? paramExample(contract, route, coll.parent.param)) : null;
    const id = `${parent ?? ""}\u0000${value[coll.key]}`;
    if (seen.has(id)) return;
    seen.add(id);
    found.push({ coll: coll.schema, parent, value: structuredClone(value) });
  };
  if (itemGet) for (const v of responseExamples(contract, itemGet)) add(v, itemGet);
  for (const r of lists) for (const v of responseExamples(contract, r)) for (const item of v?.data ?? []) add(item, r);
  return found;
}

/** An id with a prefix (`anl_01HZX…`): what a record's fields hold when they name another record. */
const PREFIXED_ID = /^([a-z]+_)[0-9A-Za-z]{8,40}$/;
/** Rounds of filling in: a record made for one id may name another (an analysis names its use case). */
const MAX_FILL_ROUNDS = 4;

/**
 * Every id the seed's values name (in any field, at any depth) that no record of its collection has, by the
 * collection its prefix belongs to: top-level collections only (a sub-collection's record needs its parent).
 */
function danglingIds(model: StoreModel, records: SeedRecord[], skip: ReadonlySet<string>): Map<string, { coll: CollectionModel; by: string | null }> {
  const byPrefix = new Map<string, CollectionModel>();
  for (const c of model.collections.values()) if (c.prefix && !c.parent) byPrefix.set(c.prefix, c);
  const have = new Set(records.map((r) => `${r.coll}\u0000${r.value[model.collections.get(r.coll)!.key]}`));
  const out = new Map<string, { coll: CollectionModel; by: string | null }>();
  let by: string | null = null;
  const visit = (v: Json): void => {
    if (typeof v === "string") {
      const coll = byPrefix.get(PREFIXED_ID.exec(v)?.[1] ?? "");
      if (coll && !skip.has(v) && !out.has(v) && !have.has(`${coll.schema}\u0000${v}`)) out.set(v, { coll, by });
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values<Json>(v).forEach(visit);
  };
  for (const r of records) {
    const key = r.value[model.collections.get(r.coll)!.key];
    by = typeof key === "string" ? key : null;
    visit(r.value);
  }
  return out;
}

/**
 * Makes the records that the examples name but never show (decision S21): an analysis names use case
 * `uc_01HZX1C4…`, a run the analyses it worked on and its approval, and no list example has them, so without this a
 * frontend following those links from a demo workspace would get 404s. Each is a copy of its collection's first
 * example with the named id, so every id an example shows leads somewhere in every workspace. Generic: any new
 * example's ids are filled in the same way.
 */
function fillDangling(model: StoreModel, records: SeedRecord[], skip: ReadonlySet<string>): SeedRecord[] {
  let added: SeedRecord[] = records;
  const all = [...records];
  for (let round = 0; round < MAX_FILL_ROUNDS && added.length; round++) {
    added = [];
    for (const [id, { coll, by }] of danglingIds(model, all, skip)) {
      const template = all.find((r) => r.coll === coll.schema);
      if (!template) continue;
      const nth = all.filter((r) => r.coll === coll.schema).length + added.filter((r) => r.coll === coll.schema).length;
      const value = { ...earlier(structuredClone(template.value), nth), [coll.key]: id };
      if (by) linkBack(value, coll.key, by);
      added.push({ coll: coll.schema, parent: null, value });
    }
    all.push(...added);
  }
  return all;
}

/**
 * A copy made for the id a record names points back at that record where the template pointed at one of its kind
 * (the approval a run names gets that run's id as its `run_id`, not the template's run).
 */
function linkBack(value: Json, key: string, by: string): void {
  const prefix = PREFIXED_ID.exec(by)?.[1];
  for (const [k, v] of Object.entries<Json>(value)) {
    if (k !== key && typeof v === "string" && PREFIXED_ID.exec(v)?.[1] === prefix) value[k] = by;
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const DAY_MS = 86_400_000;

/**
 * A filled-in copy's top-level times moved `days` days back: each copy is older than the examples a list shows
 * first (lists are newest first), and no two share a `created_at`.
 */
function earlier(value: Json, days: number): Json {
  for (const [k, v] of Object.entries<Json>(value)) {
    if (typeof v === "string" && ISO_TIME.test(v)) value[k] = new Date(Date.parse(v) - days * DAY_MS).toISOString().replace(".000Z", "Z");
  }
  return value;
}

/** The records, children and singletons every workspace starts with, as the contract's examples show them. */
export function readSeed(model: StoreModel): Seed {
  const { contract } = model;
  const shown = [...model.collections.values()].flatMap((c) => recordsOf(model, c));
  // Workspace ids are the workspace's own, replaced per workspace (SeedFactory): never filled in.
  const workspaces = new Set(shown.flatMap((r) => (typeof r.value.workspace_id === "string" ? [r.value.workspace_id] : [])));
  const records = fillDangling(model, shown, workspaces);
  const children: SeedChild[] = [];
  for (const child of model.children) {
    const param = child.route.template.match(/\{([^}]+)\}/g)?.at(-1)?.slice(1, -1) ?? "";
    for (const value of responseExamples(contract, child.route)) {
      const parent = (child.property ? value?.[child.property] : null) ?? paramExample(contract, child.route, param);
      if (typeof parent === "string" && !children.some((c) => c.schema === child.schema && c.parent === parent)) children.push({ schema: child.schema, parent, value: structuredClone(value) });
    }
  }
  completeSeed(model, records, children);
  const singletons: Record<string, Json> = {};
  for (const s of model.singletons.values()) {
    const value = responseExamples(contract, s.route)[0];
    if (value !== undefined) singletons[s.path] = structuredClone(value);
  }
  return { records, children, singletons };
}

/** `id` made distinct per parent: its last characters replaced by the parent's (`sig_…Q1R3` under `anl_…K0` → `sig_…R3K0`). */
function idUnder(id: string, parent: string): string {
  const tail = parent.slice(-6);
  return typeof id === "string" && id.length > tail.length + 8 ? id.slice(0, -tail.length) + tail : id;
}

/**
 * Seeded resources in a state with `x-completion` get what it promises and they lack (decision RM5): the examples
 * show one completed analysis's transcript, speakers and signals; the other completed analyses get copies of
 * them under their own ids, and a summary of that transcript where their features ask for one.
 */
function completeSeed(model: StoreModel, records: SeedRecord[], children: SeedChild[]): void {
  for (const r of records) {
    const coll = model.collections.get(r.coll)!;
    const state = coll.machine ? r.value[coll.machine.property] : undefined;
    const key = r.value[coll.key];
    if (typeof state !== "string" || typeof key !== "string") continue;
    const renamed = new Map<string, string>();
    for (const e of completionOf(model, r.coll, state)) {
      if (!applies(e, r.value)) continue;
      if (e.operation) fillOperation(model, records, children, coll, key, e.operation, renamed);
    }
    for (const e of completionOf(model, r.coll, state)) {
      if (e.property !== "summary" || r.value.summary !== null || !applies(e, r.value)) continue;
      const doc = children.find((c) => c.parent === key);
      r.value.summary = summaryOf(String(doc?.value?.text ?? "")) ?? r.value.summary;
    }
  }
}

/** Copies the examples' content of `operation` (a child document or a sub-collection's records) to the record `key` lacking it. */
function fillOperation(model: StoreModel, records: SeedRecord[], children: SeedChild[], coll: CollectionModel, key: string, operation: string, renamed: Map<string, string>): void {
  const child = model.children.find((c) => c.parent === coll.schema && c.route.operationId === operation);
  if (child) {
    const template = children.find((c) => c.schema === child.schema);
    if (!template || children.some((c) => c.schema === child.schema && c.parent === key)) return;
    const value = structuredClone(template.value);
    if (child.property) value[child.property] = key;
    children.push({ schema: child.schema, parent: key, value });
    return;
  }
  const route = [...model.plans].find(([r, p]) => r.operationId === operation && p.kind === "list")?.[1] as { coll: CollectionModel } | undefined;
  const sub = route?.coll;
  if (!sub || sub.parent?.schema !== coll.schema || records.some((x) => x.coll === sub.schema && x.parent === key)) return;
  const template = records.find((x) => x.coll === sub.schema)?.parent;
  for (const x of records.filter((y) => y.coll === sub.schema && y.parent === template)) {
    const value = structuredClone(x.value);
    // A copy names the copies made before it (an alert its signal), not the example's records.
    for (const [k, v] of Object.entries<Json>(value)) if (typeof v === "string" && renamed.has(v)) value[k] = renamed.get(v);
    if (sub.prefix) {
      const id = idUnder(value[sub.key], key);
      renamed.set(value[sub.key], id);
      value[sub.key] = id;
    }
    if (sub.parent.property) value[sub.parent.property] = key;
    records.push({ coll: sub.schema, parent: key, value });
  }
}

/** The workspace id the examples are written in: the most frequent `workspace_id` among the seed's values. */
export function exampleWorkspace(seed: Seed): string | null {
  const counts = new Map<string, number>();
  const visit = (v: Json): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries<Json>(v)) {
      if (k === "workspace_id" && typeof x === "string") counts.set(x, (counts.get(x) ?? 0) + 1);
      else visit(x);
    }
  };
  visit([seed.records.map((r) => r.value), seed.children.map((c) => c.value), Object.values(seed.singletons)]);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/**
 * Makes copies of the seed for one workspace: the examples' workspace id becomes `workspaceId` wherever it
 * appears (a workspace's own record included). The seed is serialised once; each copy is a string replacement
 * and one JSON.parse, so a workspace's first request stays cheap.
 */
export class SeedFactory {
  private readonly text: string;
  private readonly quoted: string | null;

  constructor(readonly seed: Seed) {
    this.text = JSON.stringify(seed);
    const ws = exampleWorkspace(seed);
    this.quoted = ws ? JSON.stringify(ws) : null;
  }

  for(workspaceId: string): Seed {
    const text = this.quoted ? this.text.replaceAll(this.quoted, JSON.stringify(workspaceId)) : this.text;
    return JSON.parse(text) as Seed;
  }
}
