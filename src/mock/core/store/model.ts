// What the store keeps and how each operation touches it, inferred from the contract alone: path templates,
// verbs and response schemas. No resource is named here.
//
//   collection   a GET answering a list envelope `{data: [<Item>], next_cursor, has_more}`; its path is the
//                collection path, `<collection path>/{param}` its item path. A collection under another's item
//                path (`/v1/analyses/{analysis_id}/signals`) is a sub-collection: its records belong to a parent.
//   create       a POST answering 201/202 with a collection's item schema, at a path not ending in a parameter
//                (`/v1/analyses`, `/v1/analyses/upload`, `/v1/analysis/stream-upload`)
//   get, update, replace, delete
//                GET, PATCH, PUT, DELETE on an item path
//   action       a POST on `<item path>/<verb>` answering the item schema (`/v1/runs/{run_id}/cancel`)
//   child        a GET on `<item path>/<name>` answering one object that is neither a list nor the item
//                (`/v1/analyses/{analysis_id}/transcript`): one record per parent
//   singleton    a GET on a path without parameters that some operation writes: a PUT on the same path, or a
//                POST on `<path>/<verb>` (`/v1/consent`, `/v1/tos`)
//
// Everything else (`/v1/query`, `/v1/text/analyze`, health, a create answering a schema with more than the item,
// such as a key with its secret) is not stored: the contract's examples answer it.
import { machinesByOperation, readLifecycles, type Machine } from "../../../contract/lifecycle.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";

export interface ParentModel {
  /** The path parameter naming the parent (`analysis_id`). */
  param: string;
  /** The parent's collection schema (`Analysis`). */
  schema: string;
  /** The item property holding the parent's key, when the item has one (`Signal.analysis_id`). */
  property: string | null;
}

export interface CollectionModel {
  /** The item schema's component name, e.g. `Analysis`: the collection's name. */
  schema: string;
  /** The item property that identifies a record (`id`; `user_id` for members; `label` for analysis speakers). */
  key: string;
  /** `pattern` of the key property, if it has one; new keys are made with its prefix (`anl_`). */
  keyPattern: string | null;
  prefix: string | null;
  /** Property schemas of the item, `$ref`s resolved one level. */
  properties: Record<string, Json>;
  required: string[];
  parent: ParentModel | null;
  /** The date-time property lists are ordered by, newest first (`created_at`, else the first required one). */
  time: string | null;
  machine: Machine | null;
  collectionPath: string;
  itemPath: string | null;
  /** The item path's last parameter (`analysis_id`): where a request names a record. */
  keyParam: string | null;
}

export interface ChildModel {
  schema: string;
  /** The collection of the parent record. */
  parent: string;
  /** The child's property holding the parent's key, if any (`Transcript.analysis_id`). */
  property: string | null;
  route: Route;
}

export interface SingletonModel {
  schema: string;
  path: string;
  route: Route;
}

export type OpPlan =
  | { kind: "list"; coll: CollectionModel }
  | { kind: "create"; coll: CollectionModel }
  | { kind: "get" | "update" | "replace" | "delete"; coll: CollectionModel }
  | { kind: "action"; coll: CollectionModel }
  | { kind: "child"; child: ChildModel; coll: CollectionModel }
  | { kind: "singleton"; singleton: SingletonModel };

export interface StoreModel {
  collections: Map<string, CollectionModel>;
  children: ChildModel[];
  singletons: Map<string, SingletonModel>;
  /** How each stored operation touches the store, by route. */
  plans: Map<Route, OpPlan>;
  machines: Record<string, Machine>;
  /** The machine governing each operation the lifecycle has a say in (a `requires` or a transition names it). */
  byOp: Map<string, Machine>;
  contract: Contract;
}

/** The component name a `$ref` points to, or null. */
export function refName(node: Json): string | null {
  const ref = node?.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
}

/** The JSON schema node of a route's documented success response, if it answers JSON. */
export function successSchema(contract: Contract, route: Route): Json {
  const response = contract.deref(route.op.responses?.[String(route.successCode)]);
  return response?.content?.["application/json"]?.schema;
}

/** The item schema name of a list envelope `{data: [$ref], next_cursor, has_more}`, or null. */
function listItem(contract: Contract, schema: Json): string | null {
  const s = contract.deref(schema);
  const props = s?.properties;
  if (!props?.data || !props.next_cursor || !props.has_more) return null;
  return refName(contract.deref(props.data)?.items);
}

const isParam = (segment: string | undefined) => !!segment && /^\{.+\}$/.test(segment);
const paramName = (segment: string) => segment.slice(1, -1);
const segments = (template: string) => template.split("/").slice(1);
const nullable = (p: Json) => Array.isArray(p?.type) ? p.type.includes("null") : p?.oneOf?.some((b: Json) => b?.type === "null") === true;

function isDateTime(contract: Contract, p: Json): boolean {
  return contract.deref(p)?.format === "date-time";
}

function collectionModel(contract: Contract, schema: string, listRoute: Route, routes: Route[], machines: Record<string, Machine>): CollectionModel {
  const item = contract.deref(contract.doc.components.schemas[schema]);
  const properties: Record<string, Json> = Object.fromEntries(Object.entries<Json>(item.properties ?? {}).map(([k, v]) => [k, contract.deref(v)]));
  const required: string[] = item.required ?? [];
  const base = listRoute.template;
  const itemRoute = routes.find((r) => {
    const s = segments(r.template);
    return r.template.startsWith(base + "/") && s.length === segments(base).length + 1 && isParam(s.at(-1));
  });
  const itemParam = itemRoute ? paramName(segments(itemRoute.template).at(-1)!) : null;
  const key =
    itemParam && properties[itemParam]
      ? itemParam
      : properties.id
        ? "id"
        : (required.find((k) => properties[k]?.type === "string" && typeof properties[k]?.pattern === "string") ?? required[0]!);
  const keyPattern: string | null = typeof properties[key]?.pattern === "string" ? properties[key].pattern : null;
  const prefix = keyPattern ? (/^\^([a-z]+_)/.exec(keyPattern)?.[1] ?? null) : null;
  const time = properties.created_at && isDateTime(contract, properties.created_at) ? "created_at" : (required.find((k) => isDateTime(contract, properties[k]) && !nullable(properties[k])) ?? null);
  return {
    schema,
    key,
    keyPattern,
    prefix,
    properties,
    required,
    parent: null, // linked below, once every collection is known
    time,
    machine: machines[schema] ?? null,
    collectionPath: base,
    itemPath: itemRoute?.template ?? null,
    keyParam: itemParam,
  };
}

/** Reads the store's model from the contract (once per gateway). */
export function readModel(contract: Contract): StoreModel {
  const machines = readLifecycles(contract.doc);
  // Only the operations a lifecycle names: the others (a GET) need not ask it anything.
  const named = (m: Machine, op: string) => op in m.requires || m.transitions.some((t) => t.operation === op);
  const byOp = new Map([...machinesByOperation(contract.doc, machines)].filter(([op, m]) => named(m, op)));
  const routes = contract.router.routes;
  const collections = new Map<string, CollectionModel>();
  const plans = new Map<Route, OpPlan>();

  for (const r of routes) {
    if (r.method !== "get") continue;
    const item = listItem(contract, successSchema(contract, r));
    if (!item) continue;
    const coll = collections.get(item) ?? collectionModel(contract, item, r, routes, machines);
    collections.set(item, coll);
    plans.set(r, { kind: "list", coll });
  }
  const byItemPath = new Map([...collections.values()].filter((c) => c.itemPath).map((c) => [c.itemPath!, c]));
  for (const c of collections.values()) {
    const s = segments(c.collectionPath);
    const last = [...s].reverse().find(isParam);
    if (!last) continue;
    const parentPath = "/" + s.slice(0, s.lastIndexOf(last) + 1).join("/");
    const parent = byItemPath.get(parentPath);
    if (parent) c.parent = { param: paramName(last), schema: parent.schema, property: c.properties[paramName(last)] ? paramName(last) : null };
  }

  const children: ChildModel[] = [];
  const singletons = new Map<string, SingletonModel>();
  for (const r of routes) {
    if (plans.has(r)) continue;
    const plan = planOf(contract, r, collections, byItemPath, routes, children, singletons);
    if (plan) plans.set(r, plan);
  }
  return { collections, children, singletons, plans, machines, byOp, contract };
}

function planOf(
  contract: Contract,
  r: Route,
  collections: Map<string, CollectionModel>,
  byItemPath: Map<string, CollectionModel>,
  routes: Route[],
  children: ChildModel[],
  singletons: Map<string, SingletonModel>,
): OpPlan | undefined {
  const s = segments(r.template);
  const answers = refName(successSchema(contract, r));
  const item = byItemPath.get(r.template);
  if (item) {
    const kind = ({ get: "get", patch: "update", put: "replace", delete: "delete" } as const)[r.method as "get"];
    return kind ? { kind, coll: item } : undefined;
  }
  const owner = byItemPath.get("/" + s.slice(0, -1).join("/"));
  if (owner && !isParam(s.at(-1)) && r.method === "post" && answers === owner.schema) return { kind: "action", coll: owner };
  if (r.method === "post" && !isParam(s.at(-1)) && answers && collections.has(answers) && [201, 202].includes(r.successCode)) {
    return { kind: "create", coll: collections.get(answers)! };
  }
  if (owner && !isParam(s.at(-1))) {
    if (r.method === "get" && answers && !listItem(contract, successSchema(contract, r))) {
      const props = contract.deref(contract.doc.components.schemas[answers])?.properties ?? {};
      const param = paramName(segments(owner.itemPath!).at(-1)!);
      const child: ChildModel = { schema: answers, parent: owner.schema, property: props[param] ? param : props[owner.key] ? owner.key : null, route: r };
      children.push(child);
      return { kind: "child", child, coll: owner };
    }
    return undefined;
  }
  if (r.method === "get" && answers && !s.some(isParam)) {
    const written = routes.some((w) => (w.template === r.template && w.method === "put") || (w.method === "post" && w.template.startsWith(r.template + "/") && segments(w.template).length === s.length + 1));
    if (!written) return undefined;
    const singleton: SingletonModel = { schema: answers, path: r.template, route: r };
    singletons.set(r.template, singleton);
    return { kind: "singleton", singleton };
  }
  return undefined;
}
