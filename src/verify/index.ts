// The verifier's public surface: `verify()` for a whole run (scripts/verify/verify.ts), and the checks on their own for
// judging single request/response pairs (the gateway's proxy mode).
export { verify, DEFAULTS, type VerifyOptions } from "./runner.js";
export { createChecks, checkExchange, type CheckResult } from "./checks/index.js";
export { ContractView } from "./requests/contract-view.js";
export { groupViolations, junitXml, summaryTable, type Report, type OperationReport, type ViolationGroup } from "./report.js";
export { VerifyUsageError, parseTarget, isLoopback } from "./target.js";
export { globToRegExp, selectOperations } from "./select.js";
export type { Check, Exchange, ExchangeRequest, ExchangeResponse, Operation, RequestFacts, Violation } from "./types.js";
