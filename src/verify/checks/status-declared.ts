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

/**
 * not-a-server-error: no request is answered 500 (Schemathesis' `not_a_server_error`). A contract may declare 500
 * for its error body's shape, but the status says the service failed on what it was sent, whatever the request:
 * a boundary value, unicode or a control byte it should have taken or refused (probes/inputs.ts). Only 500 and the
 * statuses no proxy or overload explains (505 and up): 501 is coverage's, 502–504 a gateway's or a wait.
 */
export function notAServerError(): Check {
  return {
    name: "not-a-server-error",
    description: "No request is answered 500 (the service failed on it).",
    check({ response }) {
      if (response.status !== 500 && response.status < 505) return [];
      return [`answered ${response.status}: the service failed on the request`];
    },
  };
}
