// unsupported-method: a method the contract declares on no operation of a path answers 405 with `Allow` listing the
// methods the contract declares there (RFC 9110 §15.5.6: a 405 MUST carry Allow; it may list more, such as HEAD or
// OPTIONS). The contract is silent on 405 (no operation declares it), so the rule is HTTP's (decision Y54). A 2xx
// means the method was acted on; a 404 denies a path the contract has. 401, 403 and 429 come before routing and
// answer nothing about it. The cases are made by probes/methods.ts; their answers are judged by this rule and the
// ones every answer of the API keeps (UNSUPPORTED_METHOD_RULES), not by the operation's declared responses.
import type { Check } from "../types.js";
import { operationPointer } from "../session/reproduce.js";

export function unsupportedMethod(): Check {
  return {
    name: "unsupported-method",
    description: "A method the contract declares on no operation of a path answers 405 with Allow.",
    check(e) {
      const p = e.probe;
      if (p?.kind !== "unsupported-method" || [401, 403, 429].includes(e.response.status)) return null;
      const declared = p.allow ?? [];
      const sent = `${e.request.method} ${e.operation.template}`;
      if (e.response.status !== 405) {
        const acted = e.response.status >= 200 && e.response.status < 300 ? ": the method was acted on" : "";
        return [`${sent} (no operation declares it) answered ${e.response.status}${acted}; expected 405 with Allow: ${declared.join(", ")}`];
      }
      const allow = e.response.headers.get("allow");
      if (allow === null) return [`${sent} answered 405 without an Allow header (RFC 9110 §15.5.6); expected Allow: ${declared.join(", ")}`];
      const listed = new Set(allow.split(",").map((m) => m.trim().toUpperCase()));
      const missing = declared.filter((m) => !listed.has(m));
      return missing.length ? [`${sent} answered 405 with Allow: ${allow}, which leaves out ${missing.join(", ")} the contract declares there`] : [];
    },
    schemaPath: (e) => operationPointer(e).replace(/\/[a-z]+$/, ""),
  };
}
