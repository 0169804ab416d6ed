// A "delete" that keeps the resource readable with a timestamp set: `revokeApiKey` sets `revoked_at`. Read from the
// operation's verb and the read's schema, so crud.ts (the round trip) and probe-checks/use-after-delete.ts agree on it.
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { ContractView } from "./contract-view.js";
import type { Operation } from "../types.js";

/** `revokeApiKey` → `revoked_at`, when the resource `read` answers has such a property; else null. */
export function softDeleteField(view: ContractView, remove: Operation, read: Operation): string | null {
  const verb = /^[a-z]+/.exec(remove.operationId)?.[0];
  if (!verb) return null;
  const field = `${verb.replace(/e$/, "")}ed_at`;
  const schema = view.contract.deref<Json>(view.declared(read, read.successCode)?.content["application/json"]?.schema);
  return schema?.properties?.[field] ? field : null;
}

/** A DELETE that keeps its resource (softDeleteField of it and the GET of its path). */
export function isSoftDelete(view: ContractView, remove: Operation): boolean {
  const read = view.operations.find((o) => o.template === remove.template && o.method === "get");
  return !!read && softDeleteField(view, remove, read) !== null;
}
