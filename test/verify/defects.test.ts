// Each class of departure from the contract, planted one at a time in a proxy in front of the mock
// (fixtures/defective-server.ts), is caught by exactly the rules named here — and nothing else is reported. The
// same proxy without a defect reports nothing, so every finding below comes from the defect.
import { afterEach, describe, expect, it } from "vitest";
import { CASES, DONE_WHEN, reads, writes, type Case } from "./fixtures/defect-cases.js";
import { startDefectiveServer, type DefectiveServer } from "./fixtures/defective-server.js";
import { BUSINESS_KEY, LIMITED_KEY, listed, rules, useMock } from "./helpers.js";
import { summaryTable } from "../../src/verify/index.js";

const mock = useMock();
let server: DefectiveServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function runAgainst(c: Pick<Case, "defect" | "options">) {
  server = await startDefectiveServer({ upstream: mock.g.url, defect: c.defect, key: BUSINESS_KEY });
  // The boundary inputs (probes/inputs.test.ts holds them) are left out: each of their creates stays in the one mock
  // of this file, and 70 runs of them filled its workspace's 20 webhooks before the last test's round trip.
  return mock.run(server.url, { inputBudget: 0, ...c.options });
}

describe("verify against a server with one planted defect", () => {
  for (const c of CASES) {
    it(`${c.defect}: reported as ${c.expected.rules.join(" + ") || `not implemented (${c.expected.notImplemented?.join(", ")})`}, and nothing else`, async () => {
      const report = await runAgainst(c);
      expect(rules(report), listed(report)).toEqual(c.expected.rules);
      expect([...new Set(report.violations.map((v) => v.operationId))].sort(), listed(report)).toEqual(c.expected.operations);
      for (const v of report.violations) expect(report.operations.find((o) => o.operationId === v.operationId)?.path).toBe(v.path);
      const missing = report.coverage.filter((r) => r.category === "not-implemented").map((r) => r.operationId);
      expect(missing).toEqual(c.expected.notImplemented ?? []);
      if (c.defect && DONE_WHEN.includes(c.defect)) expect(report.groups.length, listed(report)).toBe(missing.length ? 0 : 1);
    });

  }

  // The same runs without a defect (one per distinct set of options) report nothing.
  const baselines = new Map(CASES.map((c) => [JSON.stringify(c.options), c]));
  for (const c of baselines.values()) {
    it(`without a defect, the run of ${c.defect} reports nothing`, async () => {
      const report = await runAgainst({ ...c, defect: null });
      expect(report.violations, listed(report)).toEqual([]);
      expect(report.coverage.filter((r) => r.category === "not-implemented")).toEqual([]);
      expect(report.requests).toBeGreaterThan(0);
    });
  }

  it("missing-retry-after: the run met 429s and waited out the window the body names", async () => {
    const report = await runAgainst(CASES.find((c) => c.defect === "missing-retry-after")!);
    expect(report.checks.find((c) => c.rule === "retry-after")!.run).toBeGreaterThan(0);
    // The clock stands at hh:mm:30 and the 429 body says retry_after 30: without the header, the body's value is used.
    expect(mock.sleeps[0]).toBe(30_000);
    expect(report.operations.every((o) => o.skipped.length === 0)).toBe(true);
  });

  it("idempotency-key-ignored: the replay made a second resource, and the other body was accepted", async () => {
    const c = CASES.find((x) => x.defect === "idempotency-key-ignored")!;
    const messages = (await runAgainst(c)).violations.filter((v) => v.operationId === "createSpeaker").map((v) => v.message);
    expect(messages.some((m) => /answered id .*: acted on twice/.test(m)), messages.join("\n")).toBe(true);
    expect(messages.some((m) => /without Idempotent-Replayed: true/.test(m))).toBe(true);
    expect(messages.some((m) => /another body answered 201; expected 422 idempotency_key_reused/.test(m))).toBe(true);
    const honoured = await runAgainst({ ...c, defect: null });
    expect(honoured.checks.find((x) => x.rule === "idempotency-honoured")!.run).toBe(4); // again + other body, two operations
  });

  it("each violation carries its reproduction: request and response, credentials redacted, the contract's place, a curl line with $API_KEY", async () => {
    const report = await runAgainst({ defect: "pages-never-end", options: reads("listAnalyses") });
    const v = report.violations.find((x) => x.rule === "pagination")!;
    const r = v.reproduction!;
    expect(v.cases).toEqual(["pages"]);
    expect(r.request.method).toBe("GET");
    expect(r.request.url).toMatch(/\/v1\/analyses\?.*limit=2/);
    expect(r.request.headers["x-api-key"]).toBe("[redacted]");
    expect(r.response.status).toBe(200);
    expect(r.response.headers["content-type"]).toMatch(/json/);
    expect(Buffer.byteLength(r.response.body)).toBeLessThanOrEqual(2048 + 40);
    expect(r.schema_path).toBe("#/paths/~1v1~1analyses/get/responses/200/content/application~1json/schema");
    expect(r.curl).toContain('-H "x-api-key: $API_KEY"');
    expect(r.curl).toContain(r.request.url.replace(/^.*?\/\/[^/]+/, ""));
    expect(JSON.stringify(report)).not.toContain(BUSINESS_KEY);
  });

  it("rate-limit-headers-missing-on-errors: a defect in shared code is one cause listing every operation that shows it (issue 46)", async () => {
    const c = CASES.find((x) => x.defect === "rate-limit-headers-missing-on-errors")!;
    const report = await runAgainst(c);
    expect(report.groups, listed(report)).toHaveLength(1);
    expect([...report.groups[0]!.operations].sort()).toEqual(c.expected.operations);
    expect(summaryTable(report)).toMatch(/one cause on 4 operations: also /);
  });

  it("a round trip on a conforming resource passes every step", async () => {
    const report = await runAgainst({ defect: null, options: writes("createSpeaker", { stateful: true, followLinks: true }) });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.checks.find((c) => c.rule === "crud-roundtrip")!.run).toBe(5);
    // The read and the update after the delete (404 both) are use-after-delete's, with the sampling's (decision Y55).
    expect(report.checks.find((c) => c.rule === "use-after-delete")!.run).toBeGreaterThanOrEqual(2);
    expect(report.notices.filter((n) => /round trip/.test(n))).toEqual([]);
  });

  it("the mock's webhooks, kept for real, pass the round trip (create, read, update, delete, 404)", async () => {
    const report = await mock.run(mock.g.url, writes("createWebhook", { stateful: true, followLinks: true }));
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.checks.find((c) => c.rule === "crud-roundtrip")!.run).toBeGreaterThan(0);
  });
});
