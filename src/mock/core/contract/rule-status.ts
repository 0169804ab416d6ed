// Cross-field rules that answer another status than 422 (spec/README.md, `x-status`): a conditional subschema
// (`if`/`then`) of a request body that carries `x-status: 400` is a rule the contract answers with that status.
// When every violation of a body comes from such rules, the answer is that status with the rules' descriptions
// as `detail`; a body with any other violation still answers 422 listing everything (shape before meaning).
import type { ErrorObject } from "ajv/dist/2020.js";
import { STATUS_KEY } from "../../../contract/contract-rules.js";

export interface RuleAnswer {
  status: number;
  detail: string;
}

type Rule = { prefix: string; status: number; description: string };

/** The `x-status` rules among ajv's errors (verbose mode: each error carries its parentSchema). */
function rulesOf(errors: readonly ErrorObject[]): Rule[] {
  const rules: Rule[] = [];
  for (const e of errors) {
    const parent = e.parentSchema as Record<string, unknown> | undefined;
    if (e.keyword !== "if" || typeof parent?.[STATUS_KEY] !== "number") continue;
    const prefix = e.schemaPath.slice(0, -"/if".length);
    if (!rules.some((r) => r.prefix === prefix)) rules.push({ prefix, status: parent[STATUS_KEY] as number, description: String(parent.description ?? "A rule of the request body is broken.") });
  }
  return rules;
}

/** The answer of a body whose only violations are `x-status` rules; null when any other violation is among them. */
export function ruleAnswer(errors: readonly ErrorObject[]): RuleAnswer | null {
  const rules = rulesOf(errors);
  if (!rules.length) return null;
  const inRule = (e: ErrorObject) => rules.some((r) => e.schemaPath === r.prefix + "/if" || e.schemaPath.startsWith(r.prefix + "/then/"));
  // A violation inside a field a rule refuses is that rule's too (a variant of AnalysisCreate's "exactly one of"
  // narrows `features` to what text allows; the rule already answers 400 for the same field).
  const refused = errors.filter((e) => inRule(e) && e.keyword !== "if").map((e) => e.instancePath).filter((p) => p !== "");
  const within = (e: ErrorObject) => refused.some((p) => e.instancePath === p || e.instancePath.startsWith(p + "/"));
  if (!errors.every((e) => inRule(e) || within(e))) return null;
  return { status: rules[0]!.status, detail: rules.map((r) => r.description).join(" ") };
}
