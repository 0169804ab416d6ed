// The coverage table's categories (decision Y36) and the charset judgement (Y37), on the report builder and the
// check alone: which answers make an operation "not implemented", and which bytes a charset must read.
import { describe, expect, it } from "vitest";
import { ContractView, createChecks } from "../../src/verify/index.js";
import { charsetMismatch } from "../../src/verify/checks/content-type-declared.js";
import { ReportBuilder, summaryTable } from "../../src/verify/report.js";
import { selectOperations } from "../../src/verify/select.js";
import { contract } from "../helpers/mock.js";

const view = new ContractView(contract);
const op = (id: string) => view.operations.find((o) => o.operationId === id)!;
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const meta = { target: "t", contract: { title: "", version: "" }, started_at: "", duration_ms: 0, options: {} };

function coverage(answers: Array<[string, number, unknown, boolean?]>, selected = ["getSpeaker", "createSpeaker"]) {
  const r = new ReportBuilder(createChecks(view), selected.map(op), view.operations);
  for (const [id, status, body, made] of answers) {
    r.record(op(id), "x", status, [{ rule: "status-declared", violations: status === 405 ? ["405 is not declared"] : [] }], { case: "example default" });
    r.answered(op(id), status, bytes(body), made === true);
  }
  const report = r.build(meta);
  return { report, of: (id: string) => report.coverage.find((c) => c.operationId === id)! };
}

describe("coverage", () => {
  it("405 or 501 to every authenticated call: not implemented, and its violations are not counted", () => {
    const { report, of } = coverage([["getSpeaker", 405, { detail: "Method Not Allowed" }], ["createSpeaker", 201, { id: "spk_1" }]]);
    expect(of("getSpeaker")).toMatchObject({ category: "not-implemented", reason: "every authenticated call answered 405" });
    expect(of("createSpeaker").category).toBe("checked");
    expect(report.violations).toEqual([]);
    expect(of("listAnalyses")).toMatchObject({ category: "not-selected" });
  });

  it("404: not implemented for a resource the run had just made, or without the contract's error body; checked with it", () => {
    expect(coverage([["getSpeaker", 404, { detail: "No speaker spk_1." }, true]]).of("getSpeaker").category).toBe("not-implemented");
    expect(coverage([["getSpeaker", 404, { message: "Route GET:/v1/speakers/x not found", statusCode: 404 }]]).of("getSpeaker").category).toBe("not-implemented");
    expect(coverage([["getSpeaker", 404, { detail: "No speaker spk_example." }]]).of("getSpeaker").category).toBe("checked");
    expect(coverage([["getSpeaker", 404, { message: "nope" }], ["getSpeaker", 200, { id: "spk_1" }]]).of("getSpeaker").category).toBe("checked");
  });

  it("a 404 on an id-free path that never declares 404, to every authenticated call: not implemented, whatever the body (issue 46)", () => {
    const { report, of } = coverage([["listSpeakers", 404, { detail: "Not Found" }], ["createSpeaker", 404, { detail: "Not Found" }]], ["listSpeakers", "createSpeaker", "getSpeaker"]);
    expect(of("listSpeakers")).toMatchObject({ category: "not-implemented" });
    expect(of("createSpeaker")).toMatchObject({ category: "not-implemented" });
    expect(report.violations).toEqual([]);
    // One success among them: implemented (a 404 there is a violation, counted).
    expect(coverage([["listSpeakers", 404, { detail: "Not Found" }], ["listSpeakers", 200, { data: [] }]], ["listSpeakers"]).of("listSpeakers").category).toBe("checked");
  });

  it("an item path answering only 404 under a collection that is not implemented: not implemented too", () => {
    const { of } = coverage([["listSpeakers", 404, { detail: "Not Found" }], ["getSpeaker", 404, { detail: "Not Found" }]], ["listSpeakers", "getSpeaker"]);
    expect(of("getSpeaker")).toMatchObject({ category: "not-implemented" });
    // Under an implemented collection, a 404 on an item is the contract's answer: checked.
    const ok = coverage([["listSpeakers", 200, { data: [] }], ["getSpeaker", 404, { detail: "No speaker spk_example." }]], ["listSpeakers", "getSpeaker"]);
    expect(ok.of("getSpeaker").category).toBe("checked");
  });

  it("a write answered only without credentials (a lone 401): skipped, not checked", () => {
    const r = new ReportBuilder(createChecks(view), [op("createSpeaker")], view.operations);
    r.record(op("createSpeaker"), "x", 401, [{ rule: "auth-enforced", violations: [] }], { case: "no-credentials" });
    r.skip(op("createSpeaker"), "example default", "POST could change state: sent only with --allow-writes");
    expect(r.build(meta).coverage.find((c) => c.operationId === "createSpeaker")).toMatchObject({
      category: "skipped",
      reason: "only requests without credentials were answered; POST could change state: sent only with --allow-writes",
    });
  });

  it("the gateway's own operations (x-answered-by: gateway) are out of scope unless --operations names them", () => {
    const all = view.operations;
    const own = ["getGatewayHealth", "getGatewayHealthz", "getOpenApiDescription", "getSwaggerUi"];
    const ids = (ops: typeof all) => ops.map((o) => o.operationId);
    for (const id of own) expect(ids(selectOperations(all, undefined))).not.toContain(id);
    expect(ids(selectOperations(all, "getGatewayHealth,listAnalyses"))).toEqual(["listAnalyses", "getGatewayHealth"].sort((a, b) => all.findIndex((o) => o.operationId === a) - all.findIndex((o) => o.operationId === b)));
    const r = new ReportBuilder(createChecks(view), selectOperations(all, undefined), all);
    expect(r.build(meta).coverage.find((c) => c.operationId === "getGatewayHealthz")).toMatchObject({ category: "out-of-scope" });
  });

  it("the terminal table's counts equal the lists: a not-implemented row shows no violations, a checked row as many as are listed", () => {
    const r = new ReportBuilder(createChecks(view), ["listSpeakers", "getSpeaker", "listAnalyses"].map(op), view.operations);
    for (let i = 0; i < 3; i++) {
      r.record(op("listSpeakers"), "x", 404, [{ rule: "status-declared", violations: ["404 is not declared"] }], { case: "example default" });
      r.answered(op("listSpeakers"), 404, bytes({ detail: "Not Found" }), false);
    }
    r.record(op("listAnalyses"), "x", 200, [{ rule: "response-schema", violations: ["a", "b"] }], { case: "example default" });
    r.record(op("listAnalyses"), "y", 200, [{ rule: "response-schema", violations: ["a"] }], { case: "generated 1" });
    r.answered(op("listAnalyses"), 200, bytes({ data: [] }), false);
    const report = r.build(meta);
    const rows = summaryTable(report).split("\n");
    const cell = (id: string) => rows.find((l) => l.startsWith(`${id} `))!.trim().split(/\s+/);
    const head = rows.find((l) => l.startsWith("operation "))!.trim().split(/\s+/);
    const col = head.indexOf("violations");
    expect(cell("listSpeakers")[col]).toBe("0");
    expect(Number(cell("listAnalyses")[col])).toBe(report.violations.filter((v) => v.operationId === "listAnalyses").length);
    expect(report.operations.find((o) => o.operationId === "listSpeakers")!.checks["status-declared"]!.violations).toBe(0);
  });

  it("nothing sent: skipped, with the reasons", () => {
    const r = new ReportBuilder(createChecks(view), [op("createSpeaker")], view.operations);
    r.skip(op("createSpeaker"), "example default", "POST could change state: sent only with --allow-writes");
    expect(r.build(meta).coverage.find((c) => c.operationId === "createSpeaker")).toMatchObject({ category: "skipped", reason: "POST could change state: sent only with --allow-writes" });
  });
});

describe("the charset of a Content-Type", () => {
  const utf8 = bytes({ name: "Zoë" });
  it("must read the bytes: utf-16 on UTF-8 JSON is a violation, utf-8 is not, an unknown label is named", () => {
    const even = bytes({ name: "Zoë!" });
    expect(even.length % 2).toBe(0);
    expect(charsetMismatch("application/json; charset=utf-16", "application/json", even)).toMatch(/read as utf-16 the body is not JSON, yet its bytes are UTF-8 JSON/);
    expect(utf8.length % 2).toBe(1);
    expect(charsetMismatch("application/json; charset=utf-16", "application/json", utf8)).toMatch(/are not utf-16/);
    expect(charsetMismatch("application/json; charset=utf-8", "application/json", utf8)).toBeNull();
    expect(charsetMismatch("application/json", "application/json", utf8)).toBeNull();
    expect(charsetMismatch("application/json; charset=klingon", "application/json", utf8)).toMatch(/klingon is not a known encoding/);
    expect(charsetMismatch('text/plain; charset="us-ascii"', "text/plain", new TextEncoder().encode("plain"))).toBeNull();
  });
});
