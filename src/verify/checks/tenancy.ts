// tenancy: a resource of one workspace does not exist for another's key (OWASP API1). Its read, update and delete
// by the second key answer the contract's 404 — never the record, never a success — and the second key's list of
// its kind does not show it. The cases are sent by tenancy.ts with `--api-key-b`. A 429 answers nothing.
import type { Check, Exchange } from "../types.js";
import { operationPointer } from "../session/reproduce.js";
import { parseJson } from "./util.js";

export function tenancy(): Check {
  return {
    name: "tenancy",
    description: "Another workspace's key gets 404 for a resource (read, update, delete) and never sees it in a list.",
    check(e) {
      const p = e.probe;
      if (!p || (p.kind !== "other-tenant" && p.kind !== "other-tenant-list") || e.response.status === 429) return null;
      if (p.kind === "other-tenant-list") return listed(e) ? [`another workspace's list shows ${p.id}`] : [];
      if (e.response.status === p.expect) return [];
      const leaked = shows(e, p.id) ? ", with the record" : "";
      const what = e.request.method === "GET" ? "read" : e.request.method === "DELETE" ? "delete" : "update";
      return [`another workspace's ${what} of ${p.id} answered ${e.response.status}${leaked}; expected ${p.expect}`];
    },
    schemaPath: (e) => e.probe?.pointer ?? `${operationPointer(e)}/responses`,
  };
}

/** The list's `data` holds an item with the probe's id. */
function listed(e: Exchange): boolean {
  const body = parseJson(e.response);
  const data = body.ok ? (body.value as { data?: unknown })?.data : null;
  return Array.isArray(data) && data.some((x) => (x as { id?: unknown })?.id === e.probe?.id);
}

function shows(e: Exchange, id: string | undefined): boolean {
  const body = parseJson(e.response);
  return body.ok && (body.value as { id?: unknown })?.id === id;
}
