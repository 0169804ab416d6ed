// A run stays within --operations (issue 46 item 7): prerequisites are made only through selected operations,
// optional references are left out rather than made, and a required prerequisite that is not selected makes the
// case that needed it skipped with the reason, never a request to an operation outside the selection.
import { afterEach, describe, expect, it } from "vitest";
import { writes } from "../fixtures/defect-cases.js";
import { startDefectiveServer, type DefectiveServer } from "../fixtures/defective-server.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";
import { contract } from "../../helpers/mock.js";
import { selectOperations } from "../../../src/verify/select.js";
import { ContractView } from "../../../src/verify/requests/contract-view.js";

const mock = useMock();
let server: DefectiveServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** The operationIds of the requests the server received that the selection does not hold. */
function outside(s: DefectiveServer, operations: string): string[] {
  const selected = new Set(selectOperations(ContractView.of(contract).operations, operations).map((o) => o.operationId));
  const ops = s.received.map((r) => contract.router.match(r.method, r.path.split("?")[0]!)).map((m) => (m.kind === "ok" ? m.route.operationId : "?"));
  return [...new Set(ops.filter((op) => op !== "?" && !selected.has(op)))];
}

describe("a run stays within --operations", () => {
  const analyses = "createAnalysis,getAnalysis,listAnalyses,updateAnalysis,deleteAnalysis";

  it("the round trip of an analysis leaves its optional use case out instead of making one, and reaches the delete", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes(analyses, { stateful: true, negativeBudget: 0 }));
    expect(outside(server, analyses)).toEqual([]);
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.operations.find((o) => o.operationId === "createAnalysis")!.skipped).toEqual([]);
    expect(server.received.some((r) => r.method === "DELETE" && r.path.startsWith("/v1/analyses/"))).toBe(true);
    expect(report.notices.filter((n) => /round trip/.test(n))).toEqual([]);
  });

  it("a required prerequisite that is not selected: the cases that need it are skipped with the reason", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes("createRun", { negativeBudget: 0 }));
    expect(outside(server, "createRun")).toEqual([]);
    expect(report.violations, listed(report)).toEqual([]);
    const reasons = report.operations.find((o) => o.operationId === "createRun")!.skipped.map((s) => s.reason);
    expect(reasons.some((r) => /agent_id needs a Agent: createAgent is not selected/.test(r)), reasons.join("\n")).toBe(true);
  });
});
