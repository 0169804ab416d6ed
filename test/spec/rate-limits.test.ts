// Section 8 (limits) of the interface specification, against the contract's x-rate-limit-policy.
import { describe, expect, it } from "vitest";
import { codes, section, table } from "../helpers/spec-doc.js";
import { deref, doc, isRateLimited, operations } from "../helpers/contract.js";
import { categoryOf, dailyLimit, minuteLimit, readPolicy } from "../../src/contract/policy.js";

const policy = readPolicy(doc);
const num = (s: string) => Number(s.replace(/,/g, ""));

describe("section 8: rate-limit headers", () => {
  const rows = table("8. Limits");
  const names = rows.map((r) => codes(r["Header"]!)[0]!);
  it("the five headers are the policy's headers", () => {
    expect(names).toHaveLength(5);
    const h = policy.headers;
    expect([h.limit, h.remaining, h.reset, h.daily_limit, h.daily_remaining]).toEqual(names);
  });
  it("each header is a shared component described as the specification means it", () => {
    for (const row of rows) {
      const name = codes(row["Header"]!)[0]!;
      const header = doc.components.headers[name];
      expect(header, name).toBeDefined();
      expect(header.schema.type).toBe("integer");
      const words = row["Meaning"]!.toLowerCase().match(/[a-z]+/g)!.filter((w) => w.length > 4);
      for (const w of words.slice(0, 3)) expect(header.description.toLowerCase(), `${name}: ${w}`).toContain(w);
    }
  });
  it("every response of every operation under /v1, /aria and /ws carries all five", () => {
    let checked = 0;
    for (const { path, op } of operations()) {
      if (!isRateLimited(path)) continue;
      for (const [code, r] of Object.entries(op.responses)) {
        const headers = Object.keys(deref<{ headers?: object }>(r).headers ?? {});
        for (const n of names) expect(headers, `${op.operationId} ${code} ${n}`).toContain(n);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
  it("a 429 also carries Retry-After", () => {
    for (const { op } of operations()) if (op.responses["429"]) expect(Object.keys(deref(op.responses["429"]).headers)).toContain("Retry-After");
  });
});

describe("the description shows the policy", () => {
  it("info.description carries the plan and category tables rendered from x-rate-limit-policy", () => {
    const text: string = doc.info.description;
    expect(text).not.toContain("<!-- x-rate-limit-policy -->");
    for (const [plan, l] of Object.entries(policy.plans)) {
      const q = minuteLimit(policy, plan, categoryOf(policy, "/v1/reports"));
      expect(text).toContain(`| ${plan} | ${l.requests_per_minute.toLocaleString("en-US")} | ${l.requests_per_day.toLocaleString("en-US")} |`);
      expect(text).toMatch(new RegExp(`\\| ${plan} \\|[^\\n]*\\| ${q} \\|\\n`));
    }
    for (const c of policy.categories) expect(text).toContain(`| ${c.name} | ${c.multiplier} |`);
  });
});

describe("section 8: plan limits", () => {
  const rows = table("Plan limits");
  it("the policy's plans are exactly the specification's table", () => {
    const fromSpec = Object.fromEntries(
      rows.map((r) => [r["Plan"]!.toLowerCase(), { requests_per_minute: num(r["Requests per minute"]!), requests_per_day: num(r["Requests per day"]!) }]),
    );
    expect(policy.plans).toEqual(fromSpec);
    expect(Object.keys(fromSpec)).toEqual(["free", "starter", "pro", "business"]);
  });
  it("the daily limit is the plan's", () => {
    for (const r of rows) expect(dailyLimit(policy, r["Plan"]!.toLowerCase())).toBe(num(r["Requests per day"]!));
  });
});

describe("section 8: endpoint categories", () => {
  const rows = table("Endpoint categories");
  it("categories, multipliers and path rules match the specification's table", () => {
    const heavy = rows.filter((r) => r["Category"] !== "All other endpoints");
    expect(heavy.map((r) => r["Category"]!.toLowerCase())).toEqual(policy.categories.filter((c) => !c.default).map((c) => c.name));
    for (const row of heavy) {
      const rule = policy.categories.find((c) => c.name === row["Category"]!.toLowerCase())!;
      expect(rule.multiplier).toBe(Number(row["Multiplier"]));
      const paths = row["Paths"]!;
      const prefixes = /under ((?:`[^`]+`(?:,? or )?)+)/.exec(paths)?.[1];
      const contains = /containing ((?:`[^`]+`(?:,? or )?)+)/.exec(paths)?.[1];
      expect(rule.path_prefixes ?? []).toEqual(prefixes ? codes(prefixes) : []);
      expect(rule.path_contains ?? []).toEqual(contains ? codes(contains) : []);
    }
    const general = policy.categories.find((c) => c.default)!;
    expect(general.multiplier).toBe(Number(rows.find((r) => r["Category"] === "All other endpoints")!["Multiplier"]));
  });

  it("every operation's x-rate-limit-category is the one derived from its path", () => {
    for (const { path, op } of operations()) {
      expect(op["x-rate-limit-category"], `${op.operationId} ${path}`).toBe(categoryOf(policy, path).name);
    }
  });

  it("each heavy category has operations, and the derivation sees prefix boundaries", () => {
    const used = new Set(operations().map((o) => o.op["x-rate-limit-category"]));
    for (const c of policy.categories) expect(used, c.name).toContain(c.name);
    expect(categoryOf(policy, "/ws/analyses/{analysis_id}").name).toBe("streaming");
    expect(categoryOf(policy, "/v1/stream").name).toBe("streaming");
    expect(categoryOf(policy, "/v1/reports/{report_id}").name).toBe("query");
    expect(categoryOf(policy, "/v1/analyses/upload").name).toBe("upload");
    expect(categoryOf(policy, "/v1/workspaces").name).toBe("general");
    expect(categoryOf(policy, "/wsx").name).toBe("general");
  });

  it("rule 1: a Pro workspace gets 150 per minute in general and 75 on report endpoints", () => {
    expect(section("8. Limits")).toContain("A Pro-plan workspace (150 per minute) gets 75 per minute on report endpoints.");
    expect(minuteLimit(policy, "pro", categoryOf(policy, "/v1/analyses"))).toBe(150);
    expect(minuteLimit(policy, "pro", categoryOf(policy, "/v1/reports"))).toBe(75);
  });

  it("rule 2: the effective limit is the minimum of the key's rate_limit_rpm and the plan's", () => {
    expect(policy.key_limit).toEqual({ field: "rate_limit_rpm", combine: "min" });
    const general = categoryOf(policy, "/v1/analyses");
    expect(minuteLimit(policy, "pro", general, 10)).toBe(10);
    expect(minuteLimit(policy, "free", general, 1000)).toBe(30);
    const key = deref(doc.components.schemas.ApiKey);
    expect(key.properties.rate_limit_rpm.type).toContain("integer");
  });

  it("rule 3: the error codes and windows of the two limits, as section 7's 429 table gives them", () => {
    const rows = table("Rate-limit error body (429)");
    const [minuteError, dailyError] = codes(rows.find((r) => r["Field"] === "`error`")!["Meaning"]!);
    const [minuteWindow, dailyWindow] = codes(rows.find((r) => r["Field"] === "`window`")!["Meaning"]!);
    expect(policy.errors).toEqual({ minute: { error: minuteError, window: minuteWindow }, daily: { error: dailyError, window: dailyWindow } });
  });

  it("rule 4 (decision R1, docs/decisions/edge.md): the first matching category wins, so stream-upload is an upload", () => {
    expect(policy.category_precedence).toBe("first_match");
    expect(categoryOf(policy, "/v1/analysis/stream-upload").name).toBe("upload");
    expect(categoryOf(policy, "/v1/analysis/{id}/stream").name).toBe("streaming");
    expect(doc.paths["/v1/analysis/stream-upload"].post["x-rate-limit-category"]).toBe("upload");
  });

  it("rounding (decided): a multiplier's fraction is floored, never below 1", () => {
    for (const plan of Object.keys(policy.plans)) {
      for (const c of policy.categories) {
        const l = minuteLimit(policy, plan, c);
        expect(Number.isInteger(l) && l >= 1).toBe(true);
        expect(l).toBe(Math.floor(policy.plans[plan]!.requests_per_minute * c.multiplier));
      }
    }
  });
});
