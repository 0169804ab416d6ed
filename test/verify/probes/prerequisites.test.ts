// Prerequisites made, not borrowed (decision Y39): a body's x-references ids are resources the run made through the
// contract's own creates (or named with --ref), never the example's; made ones are deleted last; when one cannot be
// made, the round trip and the Idempotency-Key cases that needed it are skipped with the reason. Only required
// references are made, and only through selected operations (issue 46; selection.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { writes } from "../fixtures/defect-cases.js";
import { startDefectiveServer, type DefectiveServer } from "../fixtures/defective-server.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";
const mock = useMock();
let server: DefectiveServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("prerequisites", () => {
  // agent_id is required (RunCreate); the agent's skill_ids are optional (left out rather than made).
  const runs = "createRun,createAgent,deleteAgent";

  it("createRun's required agent is one the run made with the selected createAgent (its optional skills left out), deleted after the run's cases", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
    const lines: string[] = [];
    const report = await mock.run(server.url, writes(runs, { negativeBudget: 0, onExchange: (l) => lines.push(l) }));
    expect(report.violations, listed(report)).toEqual([]);
    expect(lines.filter((l) => l.includes("(prerequisite Agent (for")).map((l) => l.replace(/^\d+ /, "")), lines.join("\n")).toEqual(["POST /v1/agents (prerequisite Agent (for createRun))"]);
    expect(server.received.some((r) => r.path.startsWith("/v1/skills"))).toBe(false);
    // Deleted last, after every case (the first pass's own DELETEs included); only the rate-limit probe comes after
    // (probes/limits.ts: nothing the run needs is limited then).
    expect(lines.filter((l) => !/\(rate limit /.test(l)).at(-1)).toMatch(/ DELETE \/v1\/agents\/agt_\w+ \(prerequisite Agent: delete\)$/);
    expect(report.operations.find((o) => o.operationId === "createRun")!.skipped.filter((s) => /prerequisite/.test(s.reason))).toEqual([]);
  });

  it("when the agent cannot be made, the Idempotency-Key cases are skipped with the reason", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: "agent-create-refused", key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes(runs, { negativeBudget: 0 }));
    const skipped = report.operations.find((o) => o.operationId === "createRun")!.skipped.filter((s) => s.case === "Idempotency-Key");
    expect(skipped.map((s) => s.reason)).toEqual(["a prerequisite is missing: agent_id needs a Agent: createAgent answered 403"]);
  });

  it("--ref names one instead: nothing is made", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: "agent-create-refused", key: BUSINESS_KEY });
    const agents = (await (await fetch(`${mock.g.url}/v1/agents?limit=100`, { headers: { "X-API-Key": BUSINESS_KEY } })).json()) as { data: Array<{ id: string; status: string }> };
    const active = agents.data.find((a) => a.status === "active")!.id;
    const lines: string[] = [];
    const report = await mock.run(server.url, writes(runs, { negativeBudget: 0, refs: { Agent: active }, onExchange: (l) => lines.push(l) }));
    expect(lines.filter((l) => l.includes("prerequisite"))).toEqual([]);
    expect(report.operations.find((o) => o.operationId === "createRun")!.skipped.filter((s) => s.case === "Idempotency-Key")).toEqual([]);
  });
});
