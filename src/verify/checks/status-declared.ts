// status-declared: every status is one the operation declares (its code, an `NXX` range, or `default`).
import type { ContractView } from "../requests/contract-view.js";
import type { Check } from "../types.js";

export function statusDeclared(view: ContractView): Check {
  return {
    name: "status-declared",
    description: "The response status is one the operation declares.",
    check({ operation, response }) {
      if (view.declared(operation, response.status)) return [];
      return [`status ${response.status} is not declared for ${operation.method.toUpperCase()} ${operation.template} (declared: ${view.declaredKeys(operation).join(", ")})`];
    },
  };
}
