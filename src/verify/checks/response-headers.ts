// response-headers: every header the declared response marks `required` is present and valid against its schema
// (`Upgrade` on 426, for instance). The rate-limit headers and Retry-After have checks of their own
// (rate-limit-headers, retry-after), so a missing one is reported once, by the check that owns it.
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { ContractView } from "../requests/contract-view.js";
import type { Check } from "../types.js";
import { describeErrors } from "./util.js";
import { echoable } from "../../contract/request-id.js";

export function responseHeaders(view: ContractView): Check {
  const owned = new Set([...view.rateHeaders, view.retryAfterHeader].map((h) => h.toLowerCase()));
  return {
    name: "response-headers",
    description: "The headers the declared response requires are present and valid.",
    check({ operation, response }) {
      const declared = view.declared(operation, response.status);
      if (!declared) return null;
      const required = Object.entries(declared.headers)
        .map(([name, h]) => [name, view.contract.deref<Json>(h)] as const)
        .filter(([name, h]) => h?.required === true && !owned.has(name.toLowerCase()));
      if (!required.length) return null;
      const problems: string[] = [];
      for (const [name, h] of required) {
        const value = response.headers.get(name);
        if (value === null) {
          problems.push(`${response.status} lacks the required ${name} header`);
          continue;
        }
        const validate = view.headerValidator(h.schema);
        if (!validate(value)) problems.push(`${name}: ${JSON.stringify(value)} does not match its schema: ${describeErrors(validate.errors)}`);
      }
      return problems;
    },
  };
}

/**
 * request-id-echoed (issue 49, decision RQ2): a request that sent an X-Request-Id the contract's bounds allow gets
 * it back as sent; one that sent a value outside them (verify sends some: session.ts) gets another, fresh id, never
 * the value sent. That the header is there at all is response-headers' finding.
 */
export function requestIdEchoed(view: ContractView): Check {
  const { header } = view.requestId;
  const lower = header.toLowerCase();
  return {
    name: "request-id-echoed",
    description: `A request's own ${header} comes back when it fits the contract's bounds, and is replaced otherwise.`,
    check({ request, response }) {
      const sent = request.headers[lower];
      const got = response.headers.get(header);
      if (sent === undefined || got === null || !view.requestId.echo) return null;
      if (echoable(view.requestId, sent)) return got === sent ? [] : [`sent ${header}: ${JSON.stringify(sent)} came back as ${JSON.stringify(got)}; expected it echoed`];
      return got === sent ? [`sent ${header} ${JSON.stringify(sent)}, outside the header's schema, was echoed; expected a fresh id`] : [];
    },
  };
}
