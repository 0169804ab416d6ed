// list-filters: a list answered to a request that used a filter the contract declares (`x-filter` on a query
// parameter, src/contract/filters.ts) shows only items that pass it: `?name=Dan` on a `prefix` filter of `name` answers no
// speaker named "Marcus". The test is the one the mock applies (filterTest), read from the same declaration.
import type { ContractView } from "../requests/contract-view.js";
import { FILTER_KEY, filterTest, type FilterDecl } from "../../contract/filters.js";
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { Check, Operation } from "../types.js";
import { parseJson } from "./util.js";

/** The declared filters of an operation that the request used, with the property schema each filters. */
function usedFilters(view: ContractView, op: Operation, query: URLSearchParams, status: number) {
  const declared = op.parameters.filter((p: Json) => p.in === "query" && p[FILTER_KEY] && query.has(p.name));
  if (!declared.length) return [];
  const schema = view.contract.deref(view.declared(op, status)?.content["application/json"]?.schema);
  const items = view.contract.deref(view.contract.deref(schema?.properties?.data)?.items);
  const props: Record<string, Json> = items?.properties ?? {};
  return declared.map((p: Json) => ({ param: p.name as string, decl: p[FILTER_KEY] as FilterDecl, schema: view.contract.deref(props[p[FILTER_KEY].property]) }));
}

export function listFilters(view: ContractView): Check {
  return {
    name: "list-filters",
    description: "A list asked with a declared filter (x-filter) answers only items that pass it.",
    check({ operation, request, response, facts }) {
      // A filter value the schemas refuse has no meaning to judge the items by (invalid input is its own finding).
      if (response.status < 200 || response.status >= 300 || facts.issues.length) return null;
      const query = new URL(request.url).searchParams;
      const used = usedFilters(view, operation, query, response.status);
      if (!used.length) return null;
      const body = parseJson(response);
      const data = body.ok ? (body.value as { data?: unknown })?.data : undefined;
      if (!Array.isArray(data)) return null; // not a list envelope: response-schema's finding
      const problems: string[] = [];
      for (const { param, decl, schema } of used) {
        const test = filterTest(decl, schema, query.getAll(param));
        data.forEach((item, i) => {
          if (item && typeof item === "object" && !test(item as Record<string, unknown>)) {
            problems.push(`data[${i}].${decl.property} is ${JSON.stringify((item as Record<string, unknown>)[decl.property])}, which ${param}=${query.getAll(param).join(",")} (${decl.match}) excludes`);
          }
        });
      }
      return problems;
    },
  };
}
