// A cross-field rule the schema states (a `oneOf` "exactly one of": AnalysisCreate's `media_url` and `text` exclusive)
// becomes a negative case of its own, with no code for the operation: both fields sent, which the contract answers
// 422 (judged by invalid-input-rejected); the mock does, and a server that took it would be reported.
import { describe, expect, it } from "vitest";
import { CaseBuilder } from "../../../src/verify/requests/cases.js";
import { ContractView } from "../../../src/verify/requests/contract-view.js";
import { ValueGenerator } from "../../../src/verify/requests/generate.js";
import { contract } from "../../helpers/mock.js";
import { listed, useMock } from "../helpers.js";

const view = ContractView.of(contract);
const mock = useMock();

describe("cross-field rules as negative cases", () => {
  it("createAnalysis gets a body with both media_url and text, invalid by its schema", async () => {
    const op = view.operations.find((o) => o.operationId === "createAnalysis")!;
    const cases = await new CaseBuilder(view, new ValueGenerator(view, 1)).build(op, 0);
    const cross = cases.find((c) => c.label === "invalid-input cross-field")!;
    expect(cross).toBeDefined();
    const body = JSON.parse(Buffer.from(cross.body!.bytes).toString("utf8"));
    expect(Object.keys(body)).toEqual(expect.arrayContaining(["media_url", "text"]));
    expect(view.bodyValidator({ $ref: "#/components/schemas/AnalysisCreate" })(body)).toBe(false);
  });

  it("the mock answers it 422: invalid-input-rejected runs on it and holds", async () => {
    const lines: string[] = [];
    const report = await mock.run(mock.g.url, { operations: "createAnalysis", allowWrites: true, onExchange: (l) => lines.push(l) });
    expect(report.violations, listed(report)).toEqual([]);
    expect(lines.filter((l) => l.includes("(invalid-input cross-field)"))).toEqual(["422 POST /v1/analyses (invalid-input cross-field)"]);
  });
});
