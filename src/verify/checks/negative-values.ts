// negative-values: a request with one field broken against one constraint of its schema (negatives.ts) is refused
// as the contract promises: 422 whose `detail` names the field, or the status of the `x-status` rule it breaks —
// never a success. Statuses before validation (401, 403, 429) answer nothing.
import { verdictOf } from "../requests/negative-verdict.js";
import type { Check } from "../types.js";

export function negativeValues(): Check {
  return {
    name: "negative-values",
    description: "A value breaking one constraint of its field answers 422 naming the field (or the x-status rule's status).",
    check({ probe, response }) {
      if (probe?.kind !== "negative-value") return null;
      const verdict = verdictOf(response.status, [probe.expect], response.body, probe.field!);
      if (verdict === "inconclusive") return null;
      if (verdict === "rejected") return [];
      if (verdict === "accepted") return [`${probe.why}: accepted with ${response.status}; expected ${probe.expect}`];
      const naming = response.status === probe.expect ? " without a detail item whose loc names the field" : `; expected ${probe.expect}`;
      return [`${probe.why}: answered ${response.status}${naming}`];
    },
    schemaPath: (e) => e.probe!.pointer!,
  };
}
