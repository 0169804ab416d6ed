// Defaults come from the contract; the create example's value is the last resort (issue 20). This lists every
// property of a created resource that still takes it when a request leaves the property out, so a new one is a
// decision (add a `default`, `x-derived`, or make it nullable), never an accident.
import { describe, expect, it } from "vitest";
import { exampleFallbacks } from "../../../../src/mock/core/store/build.js";
import { readModel, type CollectionModel } from "../../../../src/mock/core/store/model.js";
import type { Route } from "../../../../src/mock/core/contract/contract-build.js";
import { contract } from "../../../helpers/mock.js";

describe("properties that still take the create example's value", () => {
  it("are exactly these", () => {
    const model = readModel(contract);
    const creates = [...model.plans].filter(([, p]) => p.kind === "create").map(([r, p]) => [r, (p as { coll: CollectionModel }).coll] as [Route, CollectionModel]);
    expect(exampleFallbacks(contract, model.collections.values(), creates)).toEqual([
      "Analysis.source", // written by the Analysis create adapter (handlers.ts) from x-derived values; never the example's
      "Message.role", // the conversation handler writes `user` and `assistant` (handlers.ts)
      "Workspace.owner_id", // the creator: the caller's user, which the mock's credentials do not carry
      "Workspace.plan", // the plan of the caller's workspace
      "Workspace.slug", // derived from the name and unique across the service: no rule for it yet
      "Workspace.status", // `active` at creation: no `default` in the schema yet
    ]);
  });
});
