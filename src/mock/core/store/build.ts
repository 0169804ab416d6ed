// New records and changed records, from what the client sent and what the contract says about each property.
// A new record takes, property by property: what the client sent (body, or the query of a create that takes its
// options there), else the request schema's or the item schema's `default`, else `null` where null is allowed,
// else an empty array or object where that is valid, else the value of the create operation's own example. Then
// the server's fields: a new key with the collection's prefix, the workspace, the parent, `created_at`,
// `updated_at` and every other required time nobody sent (`requested_at`, `joined_at`) set to now.
import type { Random } from "../util/ids.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";
import { newId } from "../events/events.js";
import { requestSchemaOf } from "./derive.js";
import type { CollectionModel } from "./model.js";

const iso = (ms: number) => new Date(ms).toISOString();

function types(schema: Json): string[] {
  return Array.isArray(schema?.type) ? schema.type : typeof schema?.type === "string" ? [schema.type] : [];
}

function allowsNull(schema: Json): boolean {
  return types(schema).includes("null") || (schema?.oneOf ?? []).some((b: Json) => b?.type === "null");
}

/** The empty value a property may start with, if its schema allows one. */
function emptyOf(schema: Json): unknown {
  if (types(schema).includes("array") && !(schema.minItems > 0)) return [];
  if (types(schema).includes("object") && !(schema.required?.length > 0) && !(schema.minProperties > 0)) return {};
  return undefined;
}

/** The value a property nobody sent starts with (see the top of this file); undefined when there is none. */
function initial(name: string, schema: Json, template: unknown): unknown {
  if (schema?.default !== undefined) return structuredClone(schema.default);
  if (allowsNull(schema)) return null;
  const empty = emptyOf(schema);
  if (empty !== undefined) return empty;
  if (name.endsWith("_count") && types(schema).includes("integer")) return Math.max(0, schema.minimum ?? 0); // none yet
  return structuredClone(template);
}

/**
 * `value` with every required property its schema lists and it lacks, at any depth of nested objects (a body's
 * `SkillOutputCreate` becomes a resource's `SkillOutput`, which also has `labels` and `threshold`).
 */
export function complete(contract: Contract, schema: Json, value: unknown, template: unknown, depth = 0): unknown {
  const s = contract.deref(schema);
  if (!s || depth > 20 || !value || typeof value !== "object" || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  const t = (template && typeof template === "object" ? template : {}) as Record<string, unknown>;
  for (const [k, p] of Object.entries<Json>(s.properties ?? {})) {
    const ps = contract.deref(p);
    if (Object.hasOwn(v, k)) v[k] = complete(contract, ps, v[k], t[k], depth + 1);
    else if ((s.required ?? []).includes(k)) {
      const fill = initial(k, ps, t[k]);
      if (fill !== undefined) v[k] = fill;
    }
  }
  return v;
}

/** The properties a request sends for the record: the JSON body's, or the query's for a body of raw bytes. */
export function sentFields(contract: Contract, route: Route, coll: CollectionModel, body: unknown, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body && typeof body === "object" && !Buffer.isBuffer(body)) {
    for (const [k, v] of Object.entries(body)) if (Object.hasOwn(coll.properties, k) && v !== undefined) out[k] = v;
    return out;
  }
  for (const p of route.parameters) {
    if (p.in !== "query" || !Object.hasOwn(coll.properties, p.name)) continue;
    const all = query.getAll(p.name);
    if (!all.length) continue;
    const schema = contract.deref(p.schema);
    out[p.name] = types(schema).includes("array") ? all.flatMap((v) => v.split(",")) : types(schema).includes("integer") || types(schema).includes("number") ? Number(all[0]) : all[0];
  }
  return out;
}

/** `value` with the `default`s its schema gives for what it lacks, at any depth of nested objects. */
export function withDefaults(contract: Contract, schema: Json, value: unknown, depth = 0): unknown {
  const s = contract.deref(schema);
  if (!s || depth > 20 || !value || typeof value !== "object" || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  for (const [k, p] of Object.entries<Json>(s.properties ?? {})) {
    const ps = contract.deref(p);
    if (!Object.hasOwn(v, k) && ps?.default !== undefined) v[k] = structuredClone(ps.default);
    else if (Object.hasOwn(v, k)) v[k] = withDefaults(contract, ps, v[k], depth + 1);
  }
  return v;
}

/** The request body schema's properties (for their defaults). */
function requestProperties(contract: Contract, route: Route): Record<string, Json> {
  const content = contract.deref(route.op.requestBody)?.content ?? {};
  const schema = contract.deref(Object.values<Json>(content)[0]?.schema);
  return schema?.properties ?? {};
}

export interface NewRecord {
  workspaceId: string;
  parent: string | null;
  now: number;
  /** The create operation's example: the value of last resort for required properties nobody set. */
  template: Json;
  /** The random part of its id (the store's: a seeded simulation's generator, else WebCrypto). */
  random?: Random;
}

/** A new record of `coll` from the fields a client sent (see the top of this file). */
export function buildRecord(contract: Contract, route: Route | null, coll: CollectionModel, sent: Record<string, unknown>, o: NewRecord): Json {
  const requested = route ? requestProperties(contract, route) : {};
  const value: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(coll.properties)) {
    const req = contract.deref(requested[name]);
    if (Object.hasOwn(sent, name)) value[name] = complete(contract, schema, withDefaults(contract, req, structuredClone(sent[name])), o.template?.[name]);
    else if (req?.default !== undefined) value[name] = complete(contract, schema, structuredClone(req.default), o.template?.[name]);
    else value[name] = initial(name, schema, o.template?.[name]);
  }
  if (coll.prefix) value[coll.key] = newId(coll.prefix.slice(0, -1), o.now, o.random);
  if (Object.hasOwn(coll.properties, "workspace_id") && coll.parent?.property !== "workspace_id") value.workspace_id = o.workspaceId;
  if (coll.parent?.property && o.parent !== null) value[coll.parent.property] = o.parent;
  for (const name of coll.required) {
    const schema = coll.properties[name];
    if (contract.deref(schema)?.format === "date-time" && !allowsNull(schema) && !Object.hasOwn(sent, name)) value[name] = iso(o.now);
  }
  for (const name of ["created_at", "updated_at"]) if (Object.hasOwn(coll.properties, name)) value[name] = iso(o.now);
  return value;
}

/**
 * The properties of each created resource that still take the create example's value when a request leaves them
 * out (the last resort of `initial`): required, not server-set, not the lifecycle's state, with no `default`,
 * `x-derived` value or conditional default in the request schema, not nullable and with no empty value. Listed by
 * test/mock/core/contract/example-fallbacks.test.ts, so each one is a decision, not an accident.
 */
export function exampleFallbacks(contract: Contract, collections: Iterable<CollectionModel>, creates: Iterable<[Route, CollectionModel]>): string[] {
  const out = new Set<string>();
  const serverSet = (coll: CollectionModel, name: string, schema: Json) =>
    name === coll.key || name === "workspace_id" || name === coll.parent?.property || name === coll.machine?.property || (contract.deref(schema)?.format === "date-time" && !allowsNull(schema));
  const byColl = new Map<CollectionModel, Route[]>();
  for (const [route, coll] of creates) byColl.set(coll, [...(byColl.get(coll) ?? []), route]);
  for (const coll of collections) {
    for (const route of byColl.get(coll) ?? []) {
      const request = contract.deref(requestSchemaOf(contract, route)) ?? {};
      const req: Record<string, Json> = request.properties ?? {};
      const setOnStart = coll.machine?.set[coll.machine.initial] ?? {};
      for (const name of coll.required) {
        const schema = coll.properties[name];
        if (serverSet(coll, name, schema) || Object.hasOwn(setOnStart, name) || (request.required ?? []).includes(name)) continue;
        if (!isFallback(initial(name, schema, FALLBACK))) continue;
        const r = req[name];
        const defaulted = r && (r.default !== undefined || r["x-derived"] !== undefined || contract.deref(r)?.default !== undefined);
        if (!defaulted) out.add(`${coll.schema}.${name}`);
      }
    }
  }
  return [...out].sort();
}

/** A marker object: `initial` returns a clone of it exactly when it falls back on the example. */
const FALLBACK = { "example value": true };

/** Writes the fields of an update into a record (only the item's own properties); true when anything changed. */
export function mergeFields(contract: Contract, coll: CollectionModel, value: Json, sent: Record<string, unknown>): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(sent)) {
    if (JSON.stringify(value[k]) === JSON.stringify(v)) continue;
    value[k] = complete(contract, coll.properties[k], structuredClone(v), value[k]);
    changed = true;
  }
  return changed;
}

/** `updated_at` of a changed record, if it has one. */
export function touch(coll: CollectionModel, value: Json, now: number): void {
  if (Object.hasOwn(coll.properties, "updated_at")) value.updated_at = iso(now);
}

function isFallback(v: unknown): boolean {
  return !!v && typeof v === "object" && (v as Record<string, unknown>)["example value"] === true;
}
