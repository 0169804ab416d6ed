// A filter declared in the contract (`x-filter`, src/contract/filters.ts) is what the mock applies and what verify checks:
// listSpeakers' `name` is a prefix filter, so `?name=Dan` answers Dana Whitfield (an exact match would answer
// nothing), and the list-filters check reports an item the filter excludes.
import { describe, expect, it } from "vitest";
import { checkExchange, ContractView } from "../../../src/verify/index.js";
import { listFilters } from "../../../src/verify/checks/list-filters.js";
import { FILTER_KEY } from "../../../src/contract/filters.js";
import { contract, getJson } from "../../helpers/mock.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";

const view = new ContractView(contract);
const listSpeakers = view.operations.find((o) => o.operationId === "listSpeakers")!;
const speaker = (name: string) => ({ id: "spk_01HZX3T6Q2M8V4R1K7P9N5C3B2", name });

async function judge(query: string, names: string[]) {
  const body = JSON.stringify({ data: names.map(speaker), next_cursor: null, has_more: false });
  const { results } = await checkExchange(view, [listFilters(view)], {
    operation: listSpeakers,
    request: { method: "GET", url: `http://127.0.0.1:1/v1/speakers${query}`, headers: { "x-api-key": "pk_test_k" }, body: null },
    response: { status: 200, headers: new Headers({ "content-type": "application/json" }), body: Buffer.from(body) },
  });
  return results;
}

describe("x-filter: declared in the contract, applied by the mock, checked by verify", () => {
  it("the contract declares listSpeakers' name as a prefix filter", () => {
    expect(listSpeakers.parameters.find((p) => p.name === "name")?.[FILTER_KEY]).toEqual({ property: "name", match: "prefix" });
  });

  it("list-filters reports an item the prefix excludes, passes items it keeps, and does not apply without the filter", async () => {
    expect(await judge("?name=Dan", ["Dana Whitfield", "Marcus Lee"])).toEqual([
      { rule: "list-filters", violations: ['data[1].name is "Marcus Lee", which name=Dan (prefix) excludes'] },
    ]);
    expect(await judge("?name=Dan", ["Dana Whitfield", "Dan"])).toEqual([{ rule: "list-filters", violations: [] }]);
    expect(await judge("", ["Marcus Lee"])).toEqual([]);
  });

  const mock = useMock();

  it("the mock answers a prefix, not an exact match, and verify's run of listSpeakers finds it right", async () => {
    const res = await getJson(`${mock.g.url}/v1/speakers?name=Dan`, { headers: { "X-API-Key": BUSINESS_KEY } });
    expect(res.status).toBe(200);
    const names = res.body.data.map((s: { name: string }) => s.name);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n.startsWith("Dan")).toBe(true);
    expect(names).not.toContain("Dan"); // the seeded speaker is "Dana Whitfield": an exact match would answer nothing

    const report = await mock.run(mock.g.url, { operations: "listSpeakers" });
    expect(listed(report)).toBe("");
    const tally = report.checks.find((c) => c.rule === "list-filters");
    expect(tally?.run, "list-filters ran on the example request, which sends name=Dan").toBeGreaterThan(0);
    expect(tally?.violations).toBe(0);
  }, 60_000);
});
