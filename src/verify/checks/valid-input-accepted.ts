// valid-input-accepted: an authenticated request that is valid by the contract's schemas is not refused as a
// schema failure (422). Like Schemathesis' `positive_data_acceptance`. Other refusals stay possible: 400 for rules
// no schema states (decision E2), 404, 409, and the 422 that is not a schema failure (its `detail` a string:
// `idempotency_key_reused`, decision ID1).
import type { Check } from "../types.js";
import { parseJson } from "./util.js";

export function validInputAccepted(): Check {
  return {
    name: "valid-input-accepted",
    description: "Input valid by the schemas is not answered 422.",
    check({ response, facts }) {
      if (facts.credentials !== "header" || facts.issues.length || facts.unparseableBody || facts.unsupportedMediaType) return null;
      if (response.status !== 422) return [];
      const body = parseJson(response);
      const detail = body.ok && body.value && typeof body.value === "object" ? (body.value as { detail?: unknown }).detail : undefined;
      return typeof detail === "string" ? [] : [`answered 422 to a request that is valid by the contract`];
    },
  };
}
