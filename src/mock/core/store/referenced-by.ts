// Reverse references (`x-referenced-by` on a resource schema, spec/README.md): an operation a blocker lists
// answers 409 while a record of another collection names this one in `property` (and is in one of `states`,
// when given). `deleteAgent` while a queued run names the agent; `deleteSkill` while a use case lists the skill.
// Read from the contract once per operation; nothing here is per resource.
import type { Json, Route } from "../contract/contract-build.js";
import type { CollectionModel, StoreModel } from "./model.js";
import type { Rec, WorkspaceData } from "./records.js";
import { nameOf, StoreError } from "./store.js";

import { REFERENCED_BY_KEY } from "../../../contract/contract-rules.js";

export interface Blocker {
  /** The collection whose records may name the resource. */
  by: CollectionModel;
  /** Path to the id in such a record: `agent_id`, `skill_ids[]`, `alert_rules[].skill_id`. */
  property: string;
  states: readonly string[] | null;
  /** For an update: only when it moves the resource to this state. */
  to: string | null;
}

const cache = new WeakMap<Route, Blocker[]>();

/** The blockers of an operation on a resource of `coll`. */
export function blockersOf(model: StoreModel, coll: CollectionModel, route: Route): Blocker[] {
  let out = cache.get(route);
  if (out) return out;
  out = [];
  const raw: Json[] = model.contract.doc.components?.schemas?.[coll.schema]?.[REFERENCED_BY_KEY] ?? [];
  for (const r of raw) {
    const by = model.collections.get(r.schema);
    for (const b of r.blocks ?? []) {
      if (b.operation === route.operationId && by) out.push({ by, property: r.property, states: r.states ?? null, to: b.to ?? null });
    }
  }
  cache.set(route, out);
  return out;
}

/** The values at a property path (`a[].b`: `b` of each item of array `a`). */
export function valuesAt(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const part of path.split(".")) {
    const many = part.endsWith("[]");
    const key = many ? part.slice(0, -2) : part;
    current = current.flatMap((v) => {
      const x = v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
      return many ? (Array.isArray(x) ? x : []) : x === undefined ? [] : [x];
    });
  }
  return current;
}

/** 409 when a record still names `rec` in a way that blocks this operation (`requested`: the state an update asks for). */
export function checkReferencedBy(model: StoreModel, ws: WorkspaceData, rec: Rec, route: Route, requested: unknown): void {
  for (const b of blockersOf(model, rec.coll, route)) {
    if (b.to !== null && requested !== b.to) continue;
    const stateOf = (r: Rec) => (b.by.machine ? r.value[b.by.machine.property] : undefined);
    for (const other of ws.table(b.by).all()) {
      if (!valuesAt(other.value, b.property).includes(rec.key)) continue;
      if (b.states && !b.states.includes(stateOf(other))) continue;
      const state = b.states ? ` (${stateOf(other)})` : "";
      throw new StoreError(409, `The ${nameOf(rec.coll.schema)} ${rec.key} is named by ${nameOf(b.by.schema)} ${other.key}${state} in \`${b.property}\`: ${route.operationId} waits until it no longer is.`);
    }
  }
}
