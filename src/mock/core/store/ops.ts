// The operations of the store, one generic function per kind of operation the model infers (model.ts), plus the
// few exceptions of handlers.ts. Before its own work, an operation on a resource with a lifecycle asks the
// lifecycle: 409 where `requires` forbids it, a transition applied first where one is listed (`cancelRun` answers
// the canceled run; `deleteAnalysis` cancels a running analysis, then deletes it).
import type { Json } from "../contract/contract-build.js";
import { buildRecord, mergeFields, sentFields, touch } from "./build.js";
import { adaptCreate, handlers } from "./handlers.js";
import { json, listAnswer, type StoreAnswer, type StoreRequest } from "./answer.js";
import type { CollectionModel, OpPlan } from "./model.js";
import type { Rec, WorkspaceData } from "./records.js";
import { deriveInput, requestDefaults, requestSchemaOf } from "./derive.js";
import { checkReferencedBy } from "./referenced-by.js";
import { checkReferences } from "./references.js";
import { impliedScenario } from "./scenarios.js";
import { uploadedFiles } from "../contract/validation.js";
import { nameOf, StoreError, type Store } from "./store.js";

/** Answers a stored operation; undefined when the store does not keep what the operation is about. */
export function handle(store: Store, req: StoreRequest): StoreAnswer | undefined {
  const plan = store.model.plans.get(req.route);
  const handler = HANDLERS[req.route.operationId];
  if (!plan && !handler) {
    // Answered from its examples (`/v1/text/analyze`), but the ids its body names are checked all the same: an
    // `x-references` holds on every operation whose body has it (issue 24: verify's references-enforced).
    if (req.body !== undefined && req.body !== null) checkReferences(store.model.contract, store.model, store.workspace(req.workspaceId), req.route, req.body);
    return undefined;
  }
  const ws = store.workspace(req.workspaceId);
  if (handler) return handler(store, ws, req);
  askReferences(store, ws, plan!, req);
  askLifecycle(store, ws, plan!, req);
  return generic(store, ws, plan!, req);
}

/** The key of the parent a sub-collection's path names (404 when it is not in the workspace); null for a top-level one. */
function parentKey(store: Store, ws: WorkspaceData, coll: CollectionModel, params: Record<string, string>): string | null {
  return coll.parent ? store.find(ws, store.model.collections.get(coll.parent.schema)!, params).key : null;
}

/** The record an operation's last path parameter names (an item, or the parent of a sub-collection), if any. */
function subject(store: Store, ws: WorkspaceData, plan: OpPlan, params: Record<string, string>): Rec | undefined {
  if (plan.kind === "singleton") return undefined;
  if (plan.kind === "list" || plan.kind === "create") {
    const parent = plan.coll.parent;
    return parent ? store.find(ws, store.model.collections.get(parent.schema)!, params) : undefined;
  }
  return store.find(ws, plan.coll, params);
}

/** 409 while another record names the subject in a way its `x-referenced-by` says blocks this operation. */
function askReferences(store: Store, ws: WorkspaceData, plan: OpPlan, req: StoreRequest): void {
  if (plan.kind !== "delete" && plan.kind !== "update" && plan.kind !== "action") return;
  const rec = subject(store, ws, plan, req.params);
  if (!rec) return;
  const m = rec.coll.machine;
  checkReferencedBy(store.model, ws, rec, req.route, m ? (req.body as Json)?.[m.property] : undefined);
}

function askLifecycle(store: Store, ws: WorkspaceData, plan: OpPlan, req: StoreRequest): void {
  const m = store.model.byOp.get(req.route.operationId);
  if (!m) return;
  const rec = subject(store, ws, plan, req.params);
  if (!rec || rec.coll.machine !== m) return;
  const body = req.body as Json;
  const requested = plan.kind === "update" && typeof body?.[m.property] === "string" ? body[m.property] : undefined;
  const out = store.driver.operation(ws, rec, req.route.operationId, requested);
  if (out.kind === "conflict") throw new StoreError(409, out.detail);
}

function generic(store: Store, ws: WorkspaceData, plan: OpPlan, req: StoreRequest): StoreAnswer | undefined {
  const ok = req.route.successCode;
  switch (plan.kind) {
    case "list":
      return list(store, ws, plan.coll, req);
    case "create": {
      const rec = create(store, ws, plan.coll, req);
      return { status: ok, body: rec.json() };
    }
    case "get":
    case "action":
    case "update":
    case "replace": {
      const rec = store.find(ws, plan.coll, req.params);
      if (plan.kind !== "get") write(store, rec, req, plan.kind === "replace");
      return { status: ok, body: rec.json() };
    }
    case "delete":
      remove(store, ws, store.find(ws, plan.coll, req.params));
      return { status: ok, body: null };
    case "child": {
      const owner = store.find(ws, plan.coll, req.params);
      const doc = ws.child(plan.child.schema).get(owner.key);
      if (!doc) throw new StoreError(404, `The ${nameOf(plan.coll.schema)} ${owner.key} has no ${nameOf(plan.child.schema)}.`);
      return json(ok, doc);
    }
    case "singleton": {
      const value = ws.singletons.get(plan.singleton.path);
      return value === undefined ? undefined : json(ok, value); // no example to start from: the examples answer
    }
  }
}

function list(store: Store, ws: WorkspaceData, coll: CollectionModel, req: StoreRequest): StoreAnswer {
  const parent = parentKey(store, ws, coll, req.params);
  const table = ws.table(coll);
  return listAnswer(store, req, table.ordered(parent), req.query, (make) => table.page(`${parent ?? ""}?${req.query.toString()}`, make));
}

/** A new record from a create request: what the client sent, the server's fields, its lifecycle's start. */
export function create(store: Store, ws: WorkspaceData, coll: CollectionModel, req: StoreRequest): Rec {
  const { contract } = store.model;
  const parent = parentKey(store, ws, coll, req.params);
  store.checkRoom(ws, coll);
  checkReferences(contract, store.model, ws, req.route, req.body);
  const fields = sentFields(contract, req.route, coll, req.body, req.query);
  const input = deriveInput(req.body, fields, (schema, id) => lookup(store, ws, schema, id));
  const defaults = requestDefaults(contract, requestSchemaOf(contract, req.route), input);
  for (const k of Object.keys(defaults)) if (!Object.hasOwn(coll.properties, k)) delete defaults[k];
  const sent = adaptCreate(contract, coll, { ...defaults, ...fields }, req.body, input);
  const value = buildRecord(contract, req.route, coll, sent, { workspaceId: ws.id, parent, now: store.now(), template: store.template(req.route, coll), random: store.random?.of(ws.id) });
  const m = coll.machine;
  const requested = m && typeof sent[m.property] === "string" ? (sent[m.property] as string) : undefined;
  const scenario = m ? (req.scenario ?? impliedScenario(store.model, ws, m, value)) : undefined;
  // Inline text, or an uploaded text file when the analysis is a text one (media_type derived from its content type).
  const text = (req.body as Json)?.text ?? (value.media_type === "text" ? Object.values(uploadedFiles(req.body)).find((f) => f.text !== undefined)?.text : undefined);
  return store.insert(ws, coll, parent, value, { scenario, requested, ...(typeof text === "string" ? { input: { text } } : {}) });
}

/** The value of the top-level record of collection `schema` with key `id`, if the workspace has it. */
function lookup(store: Store, ws: WorkspaceData, schema: string, id: string): Json | undefined {
  const coll = store.model.collections.get(schema);
  return coll && !coll.parent ? ws.table(coll).get(null, id)?.value : undefined;
}

/** PATCH (merge) or PUT (replace) of a record, and actions with a body (`comment` of a decision). */
function write(store: Store, rec: Rec, req: StoreRequest, replace: boolean): void {
  const coll = rec.coll;
  const sent = sentFields(store.model.contract, req.route, coll, req.body, req.query);
  if (replace) {
    const fresh = buildRecord(store.model.contract, req.route, coll, sent, { workspaceId: rec.value.workspace_id, parent: rec.parent, now: store.now(), template: rec.value, random: store.random?.of(String(rec.value.workspace_id)) });
    const kept = [coll.key, "workspace_id", "created_at", ...(coll.machine ? [coll.machine.property] : []), ...(coll.parent?.property ? [coll.parent.property] : [])];
    for (const k of kept) if (Object.hasOwn(rec.value, k)) fresh[k] = rec.value[k];
    rec.value = fresh;
  } else if (!mergeFields(store.model.contract, coll, rec.value, sent)) {
    return;
  }
  touch(coll, rec.value, store.now());
  rec.changed();
}

/** Deletes a record with everything under it (its sub-collections' records, its children); its log ends. */
export function remove(store: Store, ws: WorkspaceData, rec: Rec): void {
  rec.cancelTimers();
  rec.log?.finish();
  ws.table(rec.coll).remove(rec);
  for (const c of store.model.collections.values()) {
    if (c.parent?.schema !== rec.coll.schema) continue;
    for (const child of [...ws.table(c).ordered(rec.key)]) remove(store, ws, child);
  }
  for (const child of store.model.children) if (child.parent === rec.coll.schema) ws.child(child.schema).delete(rec.key);
}

/** The exceptions (handlers.ts), given the generic create, which they sit below. */
const HANDLERS = handlers(create);
