// Spectral ruleset for the bundled contract (generated/openapi.json), run by `npm run lint:owasp` (scripts/contract/lint-owasp.ts)
// and so by `npm test`: the OWASP API Security Top 10 (2023) ruleset and spectral:oas, both must report nothing.
// A rule turned off says why on its line; `overrides` turn a rule off at one place only. string-limit, array-limit
// and integer-limit stay on everywhere: every string, array and integer of the contract is bounded.
import owasp from "@stoplight/spectral-owasp-ruleset";
import { oas } from "@stoplight/spectral-rulesets";

const BUNDLE = "generated/openapi.json";
/** The gateway's public paths (decision A1): no credentials, no rate limit, no error responses but 503. */
const PUBLIC_PATHS = ["/health", "/healthz", "/openapi.yaml", "/swagger.html"];
/** GET operations without parameters or body: there is nothing to validate, so no 400 or 422 (decision E3). */
const NO_INPUT_GETS = ["/v1/consent", "/v1/tos", "/v1/privacy-policy", "/v1/billing/plan", "/v1/billing/usage", "/v1/health"];
/** The WebSocket operations: their success is 101 Switching Protocols, a handshake CORS does not apply to. */
const WEBSOCKETS = ["/v1/stream", "/ws/analyses/{analysis_id}"];

/** `file#pointer`, the pointer written as Spectral writes it (RFC 6901 in a URI fragment: `{` is `%7B`). */
const at = (...segments) => `${BUNDLE}#/${segments.map((s) => encodeURIComponent(String(s).replaceAll("~", "~0").replaceAll("/", "~1"))).join("/")}`;
const off = (...rules) => Object.fromEntries(rules.map((r) => [r, "off"]));

export default {
  extends: [
    [oas, "recommended"],
    [owasp, "recommended"],
  ],
  rules: {
    // JSON has one number type: a value's range is stated by minimum/maximum (integer-limit, on), not int32/int64.
    "owasp:api4:2023-integer-format": "off",
    // Free text (names, messages, summaries) has no shape a pattern could state; string-limit bounds its length.
    "owasp:api4:2023-string-restricted": "off",
  },
  overrides: [
    // The second server is the loopback mock gateway (`npm start`), which has no TLS; production is https only.
    { files: [at("servers", 1, "url")], rules: off("owasp:api8:2023-no-server-http") },
    // Public by design (A1): health checks, the description and its viewer answer without credentials or counting.
    {
      files: PUBLIC_PATHS.map((p) => at("paths", p)),
      rules: off(
        "owasp:api2:2023-read-restricted",
        "owasp:api4:2023-rate-limit",
        "owasp:api4:2023-rate-limit-responses-429",
        "owasp:api8:2023-define-error-responses-401",
        "owasp:api8:2023-define-error-responses-500",
        "owasp:api8:2023-define-error-validation",
      ),
    },
    // Nothing to validate: these GETs take no parameters and no body.
    { files: NO_INPUT_GETS.map((p) => at("paths", p, "get", "responses")), rules: off("owasp:api8:2023-define-error-validation") },
    // The interface specification (section 5) puts the key or JWT in `token` on WebSocket and SSE: browsers cannot send headers there.
    { files: [at("components", "securitySchemes", "TokenQuery")], rules: off("owasp:api2:2023-no-api-keys-in-url") },
    // A WebSocket handshake (101) is not subject to CORS: browsers check no CORS header on it.
    { files: WEBSOCKETS.map((p) => at("paths", p, "get", "responses", "101")), rules: off("owasp:api8:2023-define-cors-origin") },
    // 101 Switching Protocols is a WebSocket operation's success; redocly's policy/success-response accepts it too.
    { files: WEBSOCKETS.map((p) => at("paths", p, "get")), rules: off("operation-success-response") },
    // Not a response: the rate-limit policy's `headers` names the X-RateLimit-* headers.
    { files: [at("x-rate-limit-policy", "headers")], rules: off("owasp:api8:2023-define-cors-origin") },
  ],
};
