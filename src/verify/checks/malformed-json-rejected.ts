// malformed-json-rejected: an authenticated request whose body cannot be parsed (malformed JSON, an unreadable
// form) answers 400 (spec §7: "Invalid request body"; decision E2). 401, 403 and 429 come before the body is read:
// the rule does not apply to them.
import type { Check } from "../types.js";
import { NON_2XX_EXPECTATION_INCONCLUSIVE } from "./util.js";

export function malformedJsonRejected(): Check {
  return {
    name: "malformed-json-rejected",
    description: "A body that cannot be parsed answers 400.",
    check({ response, facts }) {
      if (facts.credentials !== "header" || !facts.unparseableBody || NON_2XX_EXPECTATION_INCONCLUSIVE.includes(response.status)) return null;
      return response.status === 400 ? [] : [`answered ${response.status} to a body that is not valid JSON; expected 400`];
    },
  };
}
