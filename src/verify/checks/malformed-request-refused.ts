// malformed-request-refused: a request that is not HTTP/1.1 (a bad request line, a header line without a colon)
// answers 400 (RFC 9112 §3, §5; the contract's BadRequest: "a request the gateway cannot take as HTTP"). A control
// byte in a header value may be refused the same way or kept (RFC 9110 §5.5 lets a recipient keep CTLs other than
// CR, LF and NUL), so there any declared answer but a 5xx holds. A 429 (the anonymous bucket spent: G26) neither
// passes nor fails. The error body, the headers and CORS of the answer are the other checks' (malformed.ts).
import type { Check } from "../types.js";
import { pointer } from "../session/reproduce.js";

export function malformedRequestRefused(): Check {
  return {
    name: "malformed-request-refused",
    description: "A request that is not HTTP (bad request line, header line without a colon, a control byte kept or refused) answers 400.",
    check({ response, malformed }) {
      if (!malformed || response.status === 429) return null;
      if (response.status === 400) return [];
      if (!malformed.mustRefuse && response.status < 500) return [];
      const what = { "control-byte": "a control byte in a header value", "request-line": "a bad request line", "no-colon": "a header line without a colon" }[malformed.kind];
      return [`answered ${response.status} to ${what}; expected 400`];
    },
    schemaPath: () => pointer("components", "responses", "BadRequest"),
  };
}
