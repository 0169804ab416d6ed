// Prerequisites made, not borrowed (decision Y39): a body's x-references ids are resources the run made through the
// contract's own creates (or named with --ref), never the example's; made ones are deleted last; when one cannot be
// made, the round trip and the Idempotency-Key cases that needed it are skipped with the reason.
import { afterEach, describe, expect, it } from "vitest";
import { writes } from "../fixtures/defect-cases.js";
import { startDefectiveServer, type DefectiveServer } from "../fixtures/defective-server.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";
import { contract } from "../../helpers/mock.js";

const mock = useMock();
let server: DefectiveServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const exampleUseCase = (() => {
  const media = contract.deref(contract.deref(contract.doc.paths["/v1/analyses"].post.requestBody).content["application/json"]);
  return Object.values<{ value?: { use_case_id?: string } }>(media.examples ?? {}).map((e) => contract.deref(e).value?.use_case_id).find(Boolean);
})();

describe("prerequisites", () => {
  it("a round trip of createAnalysis references a use case the run made with createUseCase (and its skill with createSkill), deleted after the run's cases", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes("createAnalysis", { stateful: true, followLinks: true, negativeBudget: 0 }));
    expect(report.violations, listed(report)).toEqual([]);
    const sent = server.received;
    const made = sent.findIndex((r) => r.method === "POST" && r.path === "/v1/use-cases");
    expect(made).toBeGreaterThanOrEqual(0);
    const removed = sent.findIndex((r) => r.method === "DELETE" && r.path.startsWith("/v1/use-cases/"));
    // Deleted last, the last made first: the use case, then the skill it needed (made for it the same way).
    expect(sent.slice(removed).map((r) => `${r.method} ${r.path.split("/").slice(0, 3).join("/")}`)).toEqual(["DELETE /v1/use-cases", "DELETE /v1/skills"]);
    expect(exampleUseCase).toBeTruthy();
    expect(report.operations.find((o) => o.operationId === "createAnalysis")!.skipped).toEqual([]);
  });

  it("when the use case cannot be made, the round trip and the Idempotency-Key cases are skipped with the reason", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: "use-case-create-refused", key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes("createAnalysis", { stateful: true, followLinks: true, negativeBudget: 0 }));
    const skipped = report.operations.find((o) => o.operationId === "createAnalysis")!.skipped;
    expect(skipped.map((s) => s.case).sort()).toEqual(["Idempotency-Key", "round trip /v1/analyses"]);
    for (const s of skipped) expect(s.reason).toBe("a prerequisite is missing: use_case_id needs a UseCase: createUseCase answered 403");
  });

  it("--ref names one instead: nothing is made", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: "use-case-create-refused", key: BUSINESS_KEY });
    const report = await mock.run(server.url, writes("createAnalysis", { stateful: true, followLinks: true, negativeBudget: 0, refs: { UseCase: exampleUseCase! } }));
    expect(report.violations, listed(report)).toEqual([]);
    expect(server.received.some((r) => r.path === "/v1/use-cases")).toBe(false);
    expect(report.operations.find((o) => o.operationId === "createAnalysis")!.skipped).toEqual([]);
  });
});
