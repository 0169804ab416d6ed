// The checks, in the order a report lists them. `createChecks` makes a fresh set for one run (rate-limit-semantics
// remembers what it saw); `checkExchange` runs a set on one request/response pair — all the gateway's proxy mode
// needs to judge live traffic.
import type { ContractView } from "../requests/contract-view.js";
import { requestFacts } from "../requests/request-facts.js";
import type { Check, Exchange, ExchangeRequest, ExchangeResponse, Operation, ScenarioStep } from "../types.js";
import { authEnforced } from "./auth-enforced.js";
import { contentTypeDeclared } from "./content-type-declared.js";
import { crudRoundtrip } from "./crud-roundtrip.js";
import { errorBody } from "./error-body.js";
import { idempotencyHonoured } from "./idempotency-honoured.js";
import { invalidInputRejected } from "./invalid-input-rejected.js";
import { listFilters } from "./list-filters.js";
import { lifecycleEnforced } from "./lifecycle-enforced.js";
import { lifecycleObserved } from "../probe-checks/lifecycle-observed.js";
import { pagination } from "./pagination.js";
import { referencesEnforced } from "./references-enforced.js";
import { wrongCredentials } from "./wrong-credentials.js";
import { negativeValues } from "./negative-values.js";
import { malformedJsonRejected } from "./malformed-json-rejected.js";
import { malformedRequestRefused } from "./malformed-request-refused.js";
import { rateLimitHeaders } from "./rate-limit-headers.js";
import { rateLimitSemantics } from "./rate-limit-semantics.js";
import { requestIdEchoed, responseHeaders } from "./response-headers.js";
import { responseSchema } from "./response-schema.js";
import { retryAfter } from "./retry-after.js";
import { notAServerError, statusDeclared } from "./status-declared.js";
import { tenancy } from "./tenancy.js";
import { tokenQueryRejected } from "./token-query-rejected.js";
import { unsupportedMethod } from "../probe-checks/unsupported-method.js";
import { useAfterDelete } from "../probe-checks/use-after-delete.js";
import { validInputAccepted } from "./valid-input-accepted.js";

/** The rules that judge the answer to a malformed request (malformed.ts): its status, error body, headers and CORS. */
export const MALFORMED_RULES = new Set(["status-declared", "not-a-server-error", "content-type-declared", "response-schema", "response-headers", "rate-limit-headers", "retry-after", "error-body", "malformed-request-refused"]);

/** The rules that judge the answer to a method no operation of the path declares (methods.ts): 405 with Allow, and what every answer of the API keeps. */
export const UNSUPPORTED_METHOD_RULES = new Set(["unsupported-method", "rate-limit-headers", "retry-after", "error-body"]);

/** Every check, fresh (stateful ones start empty). */
export function createChecks(view: ContractView): Check[] {
  return [
    statusDeclared(view),
    notAServerError(),
    contentTypeDeclared(view),
    responseSchema(view),
    responseHeaders(view),
    requestIdEchoed(view),
    rateLimitHeaders(view),
    retryAfter(view),
    errorBody(),
    authEnforced(),
    tokenQueryRejected(),
    wrongCredentials(),
    invalidInputRejected(),
    negativeValues(),
    validInputAccepted(),
    malformedJsonRejected(),
    malformedRequestRefused(),
    rateLimitSemantics(view),
    pagination(),
    referencesEnforced(),
    lifecycleEnforced(),
    lifecycleObserved(view),
    unsupportedMethod(),
    crudRoundtrip(),
    useAfterDelete(view),
    tenancy(),
    listFilters(view),
    idempotencyHonoured(view),
  ];
}

export interface CheckResult {
  rule: string;
  violations: string[];
}

/** Runs `checks` on one exchange; the checks that do not apply to it are left out of the result. */
export async function checkExchange(
  view: ContractView,
  checks: Check[],
  e: Omit<Exchange, "facts">,
): Promise<{ exchange: Exchange; results: CheckResult[] }> {
  const exchange: Exchange = { ...e, facts: await requestFacts(view, e.operation, e.request) };
  const results: CheckResult[] = [];
  for (const c of checks) {
    const violations = c.check(exchange);
    if (violations) results.push({ rule: c.name, violations });
  }
  return { exchange, results };
}
