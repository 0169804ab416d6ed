// Tenancy (--api-key-b): the mock keeps workspaces apart, so a run with a second workspace's key reports nothing
// and says which resource kinds it tried; without the key, the report says at its top that tenancy was not checked.
// The planted cross-tenant bugs are cases of test/verify/defects.test.ts (cross-tenant-read, -list, -delete).
import { describe, expect, it } from "vitest";
import { summaryTable } from "../../../src/verify/index.js";
import { writes } from "../fixtures/defect-cases.js";
import { OTHER_WORKSPACE_KEY } from "../fixtures/keys.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";

const mock = useMock();

describe("tenancy", () => {
  it("against the mock with a second workspace's key: every created resource is tried, 0 violations", async () => {
    const report = await mock.run(mock.g.url, writes("createSpeaker,createWebhook", { stateful: true, followLinks: true, apiKeyB: OTHER_WORKSPACE_KEY }));
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.tenancy).toEqual({ checked: true, resources: ["/v1/speakers", "/v1/webhooks"], note: null });
    // read, update, delete and the list, for each of the two kinds
    expect(report.checks.find((c) => c.rule === "tenancy")!.run).toBe(8);
    expect(summaryTable(report).split("\n")[0]).toMatch(/^tenancy: checked .*\/v1\/speakers/);
    expect(JSON.stringify(report)).not.toContain(OTHER_WORKSPACE_KEY);
  });

  it("without a second key, the report's first line says tenancy was not checked", async () => {
    const report = await mock.run(mock.g.url, writes("createSpeaker", { stateful: true, followLinks: true }));
    expect(report.tenancy.checked).toBe(false);
    expect(report.tenancy.note).toMatch(/--api-key-b/);
    expect(summaryTable(report).split("\n")[0]).toMatch(/^! tenancy NOT checked: .*--api-key-b/);
  });

  it("resources the run finds (not made by it) are read by the second key, with their related reads; read-only", async () => {
    const made = await fetch(`${mock.g.url}/v1/speakers`, { method: "POST", headers: { "x-api-key": BUSINESS_KEY, "content-type": "application/json" }, body: JSON.stringify({ name: "Found Speaker" }) });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { id: string }).id;
    const report = await mock.run(mock.g.url, { operations: "listSpeakers,getSpeaker", apiKeyB: OTHER_WORKSPACE_KEY });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.tenancy.resources).toEqual(["/v1/speakers"]);
    expect(report.checks.find((c) => c.rule === "tenancy")!.run).toBe(2); // the read and the list
    expect(report.notices.join("\n")).not.toContain(id);
  });

  it("an analysis's event stream (SSE) and its WebSocket (a raw upgrade) by the second key answer 404", async () => {
    const report = await mock.run(mock.g.url, writes("createAnalysis", { stateful: true, followLinks: true, apiKeyB: OTHER_WORKSPACE_KEY }));
    expect(report.violations, listed(report)).toEqual([]);
    for (const id of ["streamAnalysisEvents", "connectAnalysisEvents", "getAnalysisTranscript"]) {
      expect(report.operations.find((o) => o.operationId === id)?.checks.tenancy?.run, id).toBeGreaterThan(0);
    }
  });

  it("a found id the second workspace also has (fixtures seeded alike) is not judged, and said so", async () => {
    const report = await mock.run(mock.g.url, { operations: "listAgents,getAgent", apiKeyB: OTHER_WORKSPACE_KEY });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.tenancy.checked).toBe(false);
    expect(report.notices.some((n) => /tenancy of \/v1\/agents: .* is also in the second key's own list/.test(n)), report.notices.join("\n")).toBe(true);
  });

  it("the second key must be another key", async () => {
    await expect(mock.run(mock.g.url, { apiKeyB: BUSINESS_KEY })).rejects.toThrow(/another workspace/);
  });
});
