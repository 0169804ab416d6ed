// references-enforced: an id that a request property's `x-references` says must name a resource of the workspace
// is checked (decision LC12): one naming nothing answers 400, one naming a resource in a state the rule excludes
// answers 409. The cases are made from the contract (probes.ts), none written per operation.
import type { Check } from "../types.js";
import { operationPointer } from "../session/reproduce.js";
import { judgeProbe } from "./util.js";

export function referencesEnforced(): Check {
  return {
    name: "references-enforced",
    description: "An id naming no resource answers 400; one naming a resource in an excluded state answers 409 (x-references).",
    check: (e) => judgeProbe(e, ["unknown-reference", "wrong-state-reference"]),
    schemaPath: (e) => e.probe?.pointer ?? `${operationPointer(e)}/requestBody`,
  };
}
