// --stateful follows the contract's OpenAPI links: every create's round trip is the read, update and delete its
// success response links to, including the creates path templates cannot pair (the uploads, whose items live
// under /v1/analyses/{analysis_id}).
import { describe, expect, it } from "vitest";
import { ContractView } from "../../src/verify/requests/contract-view.js";
import { crudGroups } from "../../src/verify/probes/crud.js";
import { contract } from "../helpers/mock.js";

const view = ContractView.of(contract);
const groups = crudGroups(view, view.operations);

describe("round trips from the contract's links", () => {
  it("every create with a readable result links to its read, and every group comes from links", () => {
    expect(groups.length).toBeGreaterThanOrEqual(16);
    expect(groups.filter((g) => !g.linked).map((g) => g.create.operationId)).toEqual([]);
  });

  it("the uploads round-trip through the analysis they create, which no path template says", () => {
    for (const id of ["uploadAnalysis", "createStreamUpload"]) {
      const g = groups.find((x) => x.create.operationId === id)!;
      expect(g, id).toBeDefined();
      expect([g.read.operationId, g.update?.operationId, g.remove?.operationId, g.idParam]).toEqual(["getAnalysis", "updateAnalysis", "deleteAnalysis", "analysis_id"]);
    }
  });

  it("a delete that keeps the resource readable is named by its link (revokeApiKey sets revoked_at)", () => {
    const keys = groups.find((g) => g.create.operationId === "createApiKey")!;
    expect([keys.remove?.operationId, keys.softDeleteField]).toEqual(["revokeApiKey", "revoked_at"]);
  });
});
