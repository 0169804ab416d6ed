// Renders x-rate-limit-policy as Markdown tables for the description, so the numbers are written once (in the
// policy) and every reader of the docs sees them. `generate` puts the result where the root's info.description
// holds the marker below.
import { minuteLimit, type RateLimitPolicy } from "../../../src/contract/policy.js";

export const POLICY_MARKER = "<!-- x-rate-limit-policy -->";

const fmt = (n: number) => n.toLocaleString("en-US");

export function renderPolicyTables(policy: RateLimitPolicy): string {
  const plans = Object.entries(policy.plans);
  const heavy = policy.categories.filter((c) => !c.default);
  const rule = (c: RateLimitPolicy["categories"][number]) =>
    [
      ...(c.path_prefixes ?? []).map((p) => `under \`${p}\``),
      ...(c.path_contains ?? []).map((p) => `containing \`${p}\``),
    ].join(" or ") || "all remaining paths";
  const lines = [
    "| Plan | Requests per minute | Requests per day | " + heavy.map((c) => `${c.name} per minute`).join(" | ") + " |",
    "|---|---|---|" + heavy.map(() => "---|").join(""),
    ...plans.map(
      ([name, l]) =>
        `| ${name} | ${fmt(l.requests_per_minute)} | ${fmt(l.requests_per_day)} | ` +
        heavy.map((c) => fmt(minuteLimit(policy, name, c))).join(" | ") +
        " |",
    ),
    "",
    "| Category | Multiplier | Paths |",
    "|---|---|---|",
    ...policy.categories.map((c) => `| ${c.name} | ${c.multiplier} | ${rule(c)} |`),
    "",
    `The first matching category wins. A key's \`${policy.key_limit.field}\` caps the per-minute limit of every category. ` +
      `Each category has its own per-minute window per workspace; every request counts against the workspace's daily limit.`,
  ];
  return lines.join("\n");
}
