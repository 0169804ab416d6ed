// One cause per defect (issue 46): the violations are grouped first per operation, rule and place in the contract
// (every violation of one rule at one schema path of one operation is one cause), then those groups are merged across
// operations when they have the same shape: the same rule, the same schema path once the operation's own part
// (`#/paths/<template>/<method>`) is taken out, and the same first message once what names the operation (its
// method and path, ids, numbers, quoted values, a parenthesised list) is taken out. A defect in shared code (no
// rate-limit headers on any error answer) is then one cause listing the operations that show it; two defects of
// one rule with different messages stay two.
import type { Violation } from "./types.js";

/** The violations of one cause: one rule, one shape, on one operation or several (grouping.ts). */
export interface ViolationGroup {
  /** The operation of the first violation. */
  operationId: string;
  method: string;
  path: string;
  /** Every operation that shows the cause, in the order found (shared code: more than one). */
  operations: string[];
  rule: string;
  schema_path: string;
  /** Exchanges that showed it, in all. */
  count: number;
  /** Distinct violations (messages, statuses) in the group. */
  distinct: number;
  /** The first violation, with its reproduction. */
  first: Violation;
}


// The schema path with the operation's own part abstracted: `#/paths/~1v1~1x/get/responses/401` becomes
// `#/paths/*` followed by `/responses/401`.
export function pathShape(schemaPath: string): string {
  return schemaPath.replace(/^#\/paths\/[^/]+\/(get|put|post|patch|delete|head|options|trace)(?=\/|$)/, "#/paths/*");
}

/** A message with what names one operation or one request taken out. */
export function messageShape(message: string): string {
  return message
    .replace(/\b(GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS)\s+\/\S*/g, "OP")
    .replace(/\/(v1|aria|ws)\/\S*/g, "PATH")
    .replace(/\([^()]*\)/g, "(…)")
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\b[a-z]+_[0-9A-Za-z]{6,}\b/g, "ID")
    .replace(/\d+/g, "#");
}

/** Groups violations into causes, in the order their first violation was found (see the file's head). */
export function groupViolations(violations: Violation[]): ViolationGroup[] {
  const perOperation = new Map<string, ViolationGroup>();
  for (const v of violations) {
    const schema_path = v.reproduction?.schema_path ?? "";
    const key = JSON.stringify([v.operationId, v.rule, schema_path]);
    const g = perOperation.get(key);
    if (g) {
      g.count += v.count;
      g.distinct++;
    } else perOperation.set(key, { operationId: v.operationId, method: v.method, path: v.path, operations: [v.operationId], rule: v.rule, schema_path, count: v.count, distinct: 1, first: v });
  }
  const causes = new Map<string, ViolationGroup>();
  for (const g of perOperation.values()) {
    const key = JSON.stringify([g.rule, pathShape(g.schema_path), messageShape(`${g.first.status} ${g.first.message}`)]);
    const c = causes.get(key);
    if (!c) causes.set(key, { ...g, operations: [...g.operations] });
    else {
      c.count += g.count;
      c.distinct += g.distinct;
      if (!c.operations.includes(g.operationId)) c.operations.push(g.operationId);
    }
  }
  return [...causes.values()];
}
