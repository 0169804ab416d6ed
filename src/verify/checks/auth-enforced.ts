// auth-enforced: a request without credentials to an operation that requires them answers 401 (spec §5 rules 1
// and 5), whatever else is wrong with it. Like Schemathesis' `ignored_auth`. A 429 is no answer to this question
// (the caller was limited before being judged): the rule does not apply to it.
import type { Check } from "../types.js";

export function authEnforced(): Check {
  return {
    name: "auth-enforced",
    description: "A request without credentials answers 401.",
    check({ operation, response, facts }) {
      if (operation.public || facts.credentials !== "none" || response.status === 429) return null;
      return response.status === 401 ? [] : [`answered ${response.status} to a request without credentials; expected 401`];
    },
  };
}
