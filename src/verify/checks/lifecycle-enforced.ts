// lifecycle-enforced: an operation the resource's `x-lifecycle` allows only in some states (`requires`) answers
// 409 in the others (a second approve, cancelling a finished run), and so does a PATCH of the state property to a
// state no `update` transition leads to. The cases are made from the contract (probes.ts), none per operation.
import type { Check } from "../types.js";
import { operationPointer } from "../session/reproduce.js";
import { judgeProbe } from "./util.js";

export function lifecycleEnforced(): Check {
  return {
    name: "lifecycle-enforced",
    description: "An operation or update the resource's x-lifecycle does not allow in its state answers 409.",
    check: (e) => judgeProbe(e, ["illegal-transition"]),
    schemaPath: (e) => e.probe?.pointer ?? operationPointer(e),
  };
}
