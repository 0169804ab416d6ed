// Parents of nested lists (src/verify/probes/parents.ts, decision VG11): a list under another resource is asked under a
// parent that exists, found by itself, and each declared filter is asked there, so list-filters judges nested
// lists; and the run's DELETEs go after the cases that need what they delete (the first case runs first: the
// second deletes the example analysis).
import { describe, expect, it } from "vitest";
import { contract } from "../../helpers/mock.js";
import { ContractView } from "../../../src/verify/index.js";
import { listOf } from "../../../src/verify/probes/probe-context.js";
import { schemaOfParam } from "../../../src/verify/probes/parents.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";

const mock = useMock();
const EXAMPLE = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";
const view = new ContractView(contract);
/** A nested list with declared filters, read from the contract (the first one whose parent is an analysis). */
const nested = view.operations.find((op) => op.template.startsWith("/v1/analyses/{analysis_id}/") && listOf(view, "Alert") === op)!;

describe("verify finds the parents of nested lists", () => {
  it("a nested list is the list of its resource, and a path parameter names the schema whose id has its pattern", () => {
    expect(nested?.operationId).toBe("listAnalysisAlerts");
    expect(schemaOfParam({ view }, nested.parameters.find((p) => p.in === "path"))).toBe("Analysis");
  });

  it("a DELETE of the parent goes after the nested list's cases: the filters are asked under the example's analysis first", async () => {
    const lines: string[] = [];
    const report = await mock.run(mock.g.url, { operations: `${nested.operationId},deleteAnalysis`, allowWrites: true, onExchange: (l) => lines.push(l) });
    expect(report.violations, listed(report)).toEqual([]);
    const filters = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith(`200 GET `) && l.includes(`/v1/analyses/${EXAMPLE}/alerts?`));
    const deleted = lines.findIndex((l) => new RegExp(`^204 DELETE /v1/analyses/${EXAMPLE} `).test(l));
    expect(filters.length, lines.join("\n")).toBeGreaterThan(0);
    expect(deleted, lines.join("\n")).toBeGreaterThan(Math.max(...filters.map(([, i]) => i)));
  }, 120_000);
  it("with the example's analysis gone, the filters are asked under an analysis from listAnalyses, and judged", async () => {
    // The test before deleted it (the run's DELETE); deleted here too when it runs alone.
    await fetch(`${mock.g.url}/v1/analyses/${EXAMPLE}`, { method: "DELETE", headers: { "X-API-Key": BUSINESS_KEY } });
    expect((await fetch(`${mock.g.url}/v1/analyses/${EXAMPLE}`, { headers: { "X-API-Key": BUSINESS_KEY } })).status).toBe(404);
    const lines: string[] = [];
    // The parent's list is selected: a run never calls an operation outside --operations.
    const report = await mock.run(mock.g.url, { operations: `${nested.operationId},listAnalyses`, onExchange: (l) => lines.push(l) });
    expect(report.violations, listed(report)).toEqual([]);
    const filtered = lines.filter((l) => /^200 GET \/v1\/analyses\/anl_\w+\/alerts\?(status|severity)=/.test(l));
    expect(filtered.length, lines.join("\n")).toBeGreaterThanOrEqual(2);
    expect(filtered.some((l) => l.includes(EXAMPLE))).toBe(false);
    expect(report.checks.find((c) => c.rule === "list-filters")!.run).toBeGreaterThan(0);
  }, 120_000);

});
