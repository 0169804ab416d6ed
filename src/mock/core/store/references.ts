// Ids in a request body that name other resources (`x-references` on the property, decision LC12): before a
// create, each must name a resource of the workspace (400 otherwise) and, where the contract lists states, be in
// one of them (409 otherwise). Read from the contract once per operation; nothing here is per resource.
import { checkReference, REFERENCES_KEY, type ReferenceFacts } from "../../../contract/lifecycle-check.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";
import type { StoreModel as Model } from "./model.js";
import type { WorkspaceData } from "./records.js";
import { nameOf, StoreError } from "./store.js";

/** One referencing property (exported for the fixtures' check, fixtures.ts): where it is in the body (`*` for each item of an array), and what it must name. */
export interface Site {
  path: readonly string[];
  schema: string;
  states: readonly string[] | null;
}

/** Deep enough for any request body of the contract; a deeper one is not searched. */
const MAX_DEPTH = 6;

const sitesByRoute = new WeakMap<Route, readonly Site[]>();

/** The referencing properties of an operation's JSON body, found once per operation. */
export function sitesOf(contract: Contract, model: Model, route: Route): readonly Site[] {
  let sites = sitesByRoute.get(route);
  if (!sites) {
    const schema = contract.deref(contract.deref(route.op.requestBody)?.content?.["application/json"]?.schema);
    sites = schema ? collect(contract, factsOf(model), schema, [], 0) : [];
    sitesByRoute.set(route, sites);
  }
  return sites;
}

/** What checkReference needs of the store's model besides the annotated node. */
type ModelFacts = Omit<ReferenceFacts, "node">;

function factsOf(model: Model): ModelFacts {
  const machines = Object.fromEntries([...model.collections.values()].filter((c) => c.machine).map((c) => [c.schema, { states: c.machine!.states }]));
  return { schemas: [...model.collections.keys()], machines };
}

function collect(contract: Contract, facts: ModelFacts, node: Json, path: string[], depth: number): Site[] {
  if (!node || typeof node !== "object" || depth > MAX_DEPTH) return [];
  const raw = node[REFERENCES_KEY];
  if (raw !== undefined) return [site(facts, node, raw, path)];
  const out: Site[] = [];
  if (node.items) out.push(...collect(contract, facts, contract.deref(node.items), [...path, "*"], depth + 1));
  for (const [name, prop] of Object.entries<Json>(node.properties ?? {})) out.push(...collect(contract, facts, contract.deref(prop), [...path, name], depth + 1));
  return out;
}

/** A site, its x-references checked as the lint checks it (a contract the lint refuses is refused here too). */
function site(facts: ModelFacts, node: Json, raw: Json, path: string[]): Site {
  const problems = checkReference(raw, { node, ...facts });
  if (problems.length) throw new Error(`${REFERENCES_KEY} at ${path.join(".") || "the body"}: ${problems.map((p) => p.message).join("; ")}`);
  return { path, schema: raw.schema, states: raw.states ?? null };
}

/** The ids at `path` in `value`, each with where it is (`analysis_ids.1`). */
export function* idsAt(value: unknown, path: readonly string[], at: string[] = []): Iterable<[string, string]> {
  if (path.length === 0) {
    if (typeof value === "string") yield [at.join("."), value];
    return;
  }
  const [head, ...rest] = path;
  if (head === "*") {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* idsAt(value[i], rest, [...at, String(i)]);
  } else if (value && typeof value === "object" && Object.hasOwn(value, head!)) {
    yield* idsAt((value as Record<string, unknown>)[head!], rest, [...at, head!]);
  }
}

/**
 * Throws the 400 of the first id that names nothing in the workspace, else the 409 of the first that names a
 * resource in a state the contract does not allow.
 */
export function checkReferences(contract: Contract, model: Model, ws: WorkspaceData, route: Route, body: unknown): void {
  const sites = sitesOf(contract, model, route);
  if (sites.length === 0) return;
  let conflict: string | undefined;
  for (const s of sites) {
    const coll = model.collections.get(s.schema);
    // Only top-level collections are looked up by id alone (a sub-collection's id needs its parent's).
    if (!coll || coll.parent) continue;
    for (const [where, id] of idsAt(body, s.path)) {
      const rec = ws.table(coll).get(null, id);
      if (!rec) throw new StoreError(400, `${where}: no ${nameOf(s.schema)} ${id} in this workspace.`);
      const state = coll.machine ? rec.value[coll.machine.property] : undefined;
      if (s.states && !s.states.includes(state)) conflict ??= `${where}: ${nameOf(s.schema)} ${id} is ${state}; it must be ${s.states.join(" or ")}.`;
    }
  }
  if (conflict) throw new StoreError(409, conflict);
}
