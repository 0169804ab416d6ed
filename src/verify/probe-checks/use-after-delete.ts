// use-after-delete: once a DELETE of an item (`/v1/webhooks/{webhook_id}`) answered 2xx, any later request but a
// DELETE by the same caller on that item, or below it (`/v1/analyses/{id}/transcript`), answers 404, not 2xx
// (Schemathesis' use-after-free; decision Y55). A "delete" that keeps the resource with a timestamp set
// (`revokeApiKey` → `revoked_at`, requests/soft-delete.ts) is not a deletion (crud-roundtrip judges its read). The
// requests after a delete are sent by the round trip (crud.ts) and probes/after-delete.ts.
import type { ContractView } from "../requests/contract-view.js";
import { isSoftDelete } from "../requests/soft-delete.js";
import type { Check } from "../types.js";

export function useAfterDelete(view: ContractView): Check {
  const soft = new Set(view.operations.filter((op) => op.method === "delete" && isSoftDelete(view, op)).map((op) => op.operationId));
  /** credential → item paths deleted → what deleted them. */
  const deleted = new Map<string, Map<string, string>>();
  return {
    name: "use-after-delete",
    description: "After a DELETE of an item answered 2xx, the item and what is below it answer 404.",
    check(e) {
      const { status } = e.response;
      const ok = status >= 200 && status < 300;
      const who = e.facts.credentialId ?? "";
      const path = new URL(e.request.url).pathname.replace(/\/+$/, "");
      if (e.request.method === "DELETE") {
        if (ok && e.operation.method === "delete" && e.operation.template.endsWith("}") && !soft.has(e.operation.operationId)) {
          const mine = deleted.get(who) ?? new Map<string, string>();
          deleted.set(who, mine.set(path, `${e.operation.operationId} answered ${status}`));
        }
        return null;
      }
      const mine = deleted.get(who);
      if (!mine) return null;
      const item = [...mine.keys()].find((p) => path === p || path.startsWith(p + "/"));
      if (item === undefined) return null;
      if (!ok) return [];
      return [`${e.request.method} ${e.operation.template} answered ${status} after ${item} was deleted (${mine.get(item)}); expected 404`];
    },
  };
}
