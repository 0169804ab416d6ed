// rate-limit-headers: every response of a rate-limited operation (those under /v1, /aria and /ws, read from the
// contract: their responses declare the headers) carries the policy's five X-RateLimit-* headers, each a
// non-negative integer (spec §8: "Every response carries these headers"; their schemas: integer, minimum 0).
// Undeclared statuses too: the rule is the edge's, not one response's.
import type { ContractView } from "../requests/contract-view.js";
import type { Check } from "../types.js";
import { integerHeader } from "./util.js";

export function rateLimitHeaders(view: ContractView): Check {
  return {
    name: "rate-limit-headers",
    description: "Responses under /v1, /aria and /ws carry the five X-RateLimit-* headers as integers.",
    check({ operation, response }) {
      if (!operation.rateLimited) return null;
      const problems: string[] = [];
      for (const name of view.rateHeaders) {
        const n = integerHeader(response.headers, name);
        if (n === undefined) problems.push(`${response.status} lacks the ${name} header`);
        else if (Number.isNaN(n)) problems.push(`${name} is ${JSON.stringify(response.headers.get(name))}, not a non-negative integer`);
      }
      return problems;
    },
  };
}
