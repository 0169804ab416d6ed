// The project's own mock conforms to the contract: a real verify run over every operation, read-only and with
// --allow-writes, with an API key and with a bearer JWT, reports no violation — and every check but the round trip
// (off without --stateful) actually ran, so "no violation" is not "nothing checked".
import { describe, expect, it } from "vitest";
import { DEFAULT_JWT_SECRET, mintToken } from "../../src/mock/index.js";
import { contract } from "../helpers/mock.js";
import { ContractView } from "../../src/verify/index.js";
import { crudGroups } from "../../src/verify/probes/crud.js";
import { answeredByGateway } from "../../src/verify/select.js";
import { OTHER_WORKSPACE_KEY } from "./fixtures/keys.js";
import { listed, rules, useMock } from "./helpers.js";

const mock = useMock();
// Every operation the backend answers: the gateway's own (x-answered-by: gateway) are out of scope unless named.
const operationIds = contract.router.routes.filter((r) => !answeredByGateway(r)).map((r) => r.operationId).sort();
const gatewayOwn = contract.router.routes.filter(answeredByGateway).map((r) => r.operationId).sort();

describe("verify against the mock gateway", () => {
  it("read-only: every operation, no violation; writes are skipped, not sent", async () => {
    // Every anonymous case too (the test's clock waits the anonymous windows out at no cost): anonymous-budget.test.ts.
    const report = await mock.run(mock.g.url, { anonymousBudget: 10_000 });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.operations.map((o) => o.operationId).sort()).toEqual(operationIds);
    for (const o of report.operations) {
      expect(o.requests, o.operationId).toBeGreaterThan(0);
      if (o.method === "GET") expect(o.skipped, o.operationId).toEqual([]);
      else expect(o.skipped.length, o.operationId).toBeGreaterThan(0);
    }
    const ran = Object.fromEntries(report.checks.map((c) => [c.rule, c.run]));
    const writesOnly = ["crud-roundtrip", "tenancy", "malformed-json-rejected", "references-enforced", "idempotency-honoured", "use-after-delete"];
    for (const rule of Object.keys(ran).filter((r) => !writesOnly.includes(r))) expect(ran[rule], rule).toBeGreaterThan(0);
    expect(ran["malformed-json-rejected"]).toBe(0); // a malformed body is a write: not sent
    expect(ran["references-enforced"]).toBe(0); // its cases are creates: not sent
    expect(ran["idempotency-honoured"]).toBe(0); // its requests are writes: not sent
    expect(ran["use-after-delete"]).toBe(0); // nothing is deleted
  }, 300_000);

  it("--allow-writes: every case of every operation sent, no violation, every check but the round trip ran", async () => {
    const report = await mock.run(mock.g.url, { allowWrites: true, anonymousBudget: 10_000 });
    expect(report.violations, listed(report)).toEqual([]);
    for (const o of report.operations) expect(o.skipped, o.operationId).toEqual([]);
    for (const c of report.checks) {
      if (c.rule === "crud-roundtrip" || c.rule === "tenancy") expect(c.run, c.rule).toBe(0); // need --stateful
      else expect(c.run, c.rule).toBeGreaterThan(0);
    }
    // The negative values past the default budget are said to be left out, and nothing else is.
    expect(report.notices.filter((n) => !/negative-budget 200 used up|input-budget 60 used up/.test(n))).toEqual([]);
    expect(report.negatives.filter((n) => n.verdict !== "rejected" && n.verdict !== "not-sent")).toEqual([]);
    expect(report.negatives.filter((n) => n.verdict === "rejected").length).toBe(200);
  }, 300_000);

  it("--allow-writes --stateful --api-key-b: the stateful mock passes the round trip and tenancy of every resource it creates", async () => {
    const report = await mock.run(mock.g.url, { allowWrites: true, stateful: true, apiKeyB: OTHER_WORKSPACE_KEY });
    expect(report.violations, listed(report)).toEqual([]);
    const roundTrips = report.checks.find((c) => c.rule === "crud-roundtrip")!;
    expect(roundTrips.run).toBeGreaterThanOrEqual(10);
    // Every kind whose create answered and read back was tried with the other workspace's key.
    const readBack = new Set(crudGroups(new ContractView(contract), new ContractView(contract).operations).map((g) => g.name));
    expect(report.tenancy.checked).toBe(true);
    // Every resource kind of the contract (every create's round trip), tenancy included: prerequisites made, a
    // create the example cannot make for this key (a live key) made from a generated body. Kinds without a create
    // are tried on a resource found in their list (decision Y42), when the second workspace has no such id itself.
    for (const kind of readBack) expect(report.tenancy.resources, report.notices.join("\n")).toContain(kind);
    expect(report.coverage.filter((c) => c.category !== "checked" && c.category !== "out-of-scope")).toEqual([]);
    expect(report.coverage.filter((c) => c.category === "out-of-scope").map((c) => c.operationId).sort()).toEqual(gatewayOwn);
    expect(gatewayOwn).toEqual(["getGatewayHealth", "getGatewayHealthz", "getOpenApiDescription", "getSwaggerUi"]);
  }, 300_000);

  it("with a bearer JWT instead of an API key", async () => {
    const token = await mintToken({ secret: DEFAULT_JWT_SECRET, workspaceId: "ws_VerifyJwt0001", plan: "pro", expiresInSeconds: 3_600, now: mock.clock.now() });
    const report = await mock.run(mock.g.url, { apiKey: undefined, token, operations: "/v1/analyses*,/v1/reports*", allowWrites: true });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.checks.find((c) => c.rule === "rate-limit-semantics")!.run).toBeGreaterThan(0);
  }, 300_000);
});

describe("verify against the mock gateway started --stateless (examples only)", () => {
  const stateless = useMock({ stateless: true });

  it("--allow-writes: every operation; only the rules that need kept state are broken (pages, references, lifecycles, filters)", async () => {
    const report = await stateless.run(stateless.g.url, { allowWrites: true });
    // The examples-only mock answers every page with the same example (has_more: true, the same cursor: PY14)
    // and keeps no resources to look references or states up in: departures of its own, by design. Its create answers
    // the example's id, queued, after a read of that id said completed (lifecycle-observed, decision Y52), and what it
    // deleted still reads 200 (use-after-delete, Y55).
    expect(rules(report), listed(report)).toEqual(["lifecycle-enforced", "lifecycle-observed", "list-filters", "pagination", "references-enforced", "use-after-delete"]);
    expect(report.operations.map((o) => o.operationId).sort()).toEqual(operationIds);
  }, 300_000);

  it("--stateful finds the departures a stateless mock must have (a deleted resource still reads 200)", async () => {
    const report = await stateless.run(stateless.g.url, { allowWrites: true, stateful: true, operations: "createBoard,getBoard,updateBoard,deleteBoard" });
    expect(report.violations.map((v) => v.rule)).toContain("use-after-delete");
  });
});
