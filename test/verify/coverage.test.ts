// The coverage table's categories (decision Y36) and the charset judgement (Y37), on the report builder and the
// check alone: which answers make an operation "not implemented", and which bytes a charset must read.
import { describe, expect, it } from "vitest";
import { ContractView, createChecks } from "../../src/verify/index.js";
import { charsetMismatch } from "../../src/verify/checks/content-type-declared.js";
import { ReportBuilder } from "../../src/verify/report.js";
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
