// invalid-input-rejected: an authenticated request whose parameters or body break the contract's schemas answers
// 422 with a `detail` array (spec §7; decision E2: schema failures are 422, unparseable input 400). An invalid
// path id may also answer 404: a malformed id names no resource. Statuses that come before validation (401, 403
// for a frozen account or a missing permission, 429) do not answer the question: the rule does not apply.
import type { Check } from "../types.js";
import { NON_2XX_EXPECTATION_INCONCLUSIVE, parseJson } from "./util.js";

export function invalidInputRejected(): Check {
  return {
    name: "invalid-input-rejected",
    description: "Input that breaks the schemas answers 422 with a detail array.",
    check({ response, facts, probe }) {
      // A negative value made for one field is negative-values' case (one finding per cause).
      if (probe?.kind === "negative-value") return null;
      if (facts.credentials !== "header" || !facts.issues.length || facts.unparseableBody || facts.unsupportedMediaType) return null;
      if (NON_2XX_EXPECTATION_INCONCLUSIVE.includes(response.status)) return null;
      const what = facts.issues
        .slice(0, 2)
        .map((i) => `${i.loc.join(".")} ${i.msg}`)
        .join("; ");
      const onlyPath = facts.issues.every((i) => i.loc[0] === "path");
      if (response.status === 404 && onlyPath) return [];
      if (response.status !== 422) return [`answered ${response.status} to invalid input (${what}); expected 422${onlyPath ? " or 404" : ""}`];
      const body = parseJson(response);
      const detail = body.ok ? (body.value as { detail?: unknown } | null)?.detail : undefined;
      return Array.isArray(detail) && detail.length > 0 ? [] : [`422 to invalid input (${what}) without a detail array of the invalid fields`];
    },
  };
}
