// Loads the committed bundle once per test file and offers small walkers over it.
import { loadGenerated, type Json } from "../../scripts/lib/contract.js";
import { makeDeref } from "../../src/mock/core/contract/contract-build.js";

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

export interface Op {
  path: string;
  method: string;
  op: Json;
  item: Json;
}

export const doc: Json = await loadGenerated();

/** Resolves a local `$ref` (`#/components/...`) of the bundle; other values pass through. */
export const deref: <T = Json>(node: Json) => T = makeDeref(doc);

export function operations(kind: "paths" | "webhooks" = "paths"): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries<Json>(doc[kind] ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) out.push({ path, method, op: item[method], item });
  }
  return out;
}

export function operation(path: string, method: string): Op {
  const item = doc.paths?.[path];
  if (!item?.[method]) throw new Error(`no ${method.toUpperCase()} ${path} in the contract`);
  return { path, method, op: item[method], item };
}

/** The security requirements in effect for an operation (its own, else the root's). */
export function securityOf(op: Json): Array<Record<string, string[]>> {
  return op.security ?? doc.security ?? [];
}

/** All parameters of an operation, path-level ones included, dereferenced. */
export function parametersOf(o: Op): Json[] {
  return [...(o.item.parameters ?? []), ...(o.op.parameters ?? [])].map((p) => deref(p));
}

export const PUBLIC_PATHS = ["/health", "/healthz", "/openapi.yaml", "/swagger.html"];
export const isRateLimited = (path: string) => /^\/(v1|aria|ws)(\/|$)/.test(path);

/** A copy of a schema with every local `$ref` inlined, ready for ajv (the contract's schemas are not recursive). */
export function inlineRefs(node: Json, depth = 0): Json {
  if (depth > 50) throw new Error("schema nesting too deep (recursive $ref?)");
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, depth + 1));
  if (!node || typeof node !== "object") return node;
  if (typeof node.$ref === "string") return inlineRefs(deref(node), depth + 1);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineRefs(v, depth + 1)]));
}
