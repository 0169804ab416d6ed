// valid-input-accepted: an authenticated request that is valid by the contract's schemas is not refused as a
// schema failure (422). Like Schemathesis' `positive_data_acceptance`. Other refusals stay possible: 400 for rules
// no schema states (decision E2), 404, 409.
import type { Check } from "../types.js";

export function validInputAccepted(): Check {
  return {
    name: "valid-input-accepted",
    description: "Input valid by the schemas is not answered 422.",
    check({ response, facts }) {
      if (facts.credentials !== "header" || facts.issues.length || facts.unparseableBody || facts.unsupportedMediaType) return null;
      return response.status === 422 ? [`answered 422 to a request that is valid by the contract`] : [];
    },
  };
}
