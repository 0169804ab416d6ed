// retry-after: a 429 carries Retry-After, in whole seconds (spec §7: "a Retry-After header gives seconds to wait";
// its schema: integer, minimum 0), and agrees with the body's `retry_after` when the body has one. The two are
// written at the same moment, but a service may round them apart: a difference of one second is tolerated.
import type { ContractView } from "../requests/contract-view.js";
import type { Check } from "../types.js";
import { integerHeader, parseJson } from "./util.js";

export function retryAfter(view: ContractView): Check {
  const name = view.retryAfterHeader;
  return {
    name: "retry-after",
    description: "A 429 carries Retry-After in seconds, matching the body's retry_after.",
    check({ response }) {
      if (response.status !== 429) return null;
      const seconds = integerHeader(response.headers, name);
      if (seconds === undefined) return [`429 lacks the ${name} header`];
      if (Number.isNaN(seconds)) return [`${name} is ${JSON.stringify(response.headers.get(name))}, not whole seconds`];
      const body = parseJson(response);
      const inBody = body.ok ? (body.value as { retry_after?: unknown } | null)?.retry_after : undefined;
      if (typeof inBody === "number" && Math.abs(inBody - seconds) > 1) return [`${name} is ${seconds} s but the body's retry_after is ${inBody} s`];
      return [];
    },
  };
}
