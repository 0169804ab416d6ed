// The report's views: JUnit XML stays well-formed whatever a message holds; docs/backend.md's rule table and JSON
// example say what the verifier really has and writes.
import fs from "node:fs";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import { ContractView, createChecks, groupViolations, junitXml, summaryTable, type Report } from "../../src/verify/index.js";
import { contract } from "../helpers/mock.js";
import { reproduction } from "../../src/verify/session/reproduce.js";
import { replaySummary, runKey, verdicts } from "../../src/verify/session/replay.js";

const section = fs.readFileSync(path.join(REPO_ROOT, "docs/backend.md"), "utf8");

function sampleReport(message: string): Report {
  return {
    target: "https://staging.verify.invalid",
    contract: { title: "t", version: "1" },
    started_at: "2026-11-21T12:00:30.000Z",
    duration_ms: 1234,
    options: {},
    requests: 3,
    waited_ms: 0,
    tenancy: { checked: false, resources: [], note: "no key of a second workspace" },
    coverage: [{ operationId: "listAnalyses", method: "GET", path: "/v1/analyses", category: "checked", reason: null }],
    negatives: [],
    rate_limits: [],
    operations: [
      { operationId: "listAnalyses", method: "GET", path: "/v1/analyses", requests: 3, checks: { "status-declared": { run: 3, violations: 0 }, "response-schema": { run: 3, violations: 1 } }, skipped: [{ case: "token-query", reason: "a credential in a URL needs TLS or loopback (spec §5 rule 7)" }] },
    ],
    checks: [
      { rule: "status-declared", description: "", run: 3, violations: 0 },
      { rule: "response-schema", description: "", run: 3, violations: 1 },
    ],
    violations: [{ operationId: "listAnalyses", method: "GET", path: "/v1/analyses", status: 200, rule: "response-schema", message, request: "GET /v1/analyses?a=1&b=<2>", count: 2, cases: ["generated 1"],
      reproduction: {
        request: { method: "GET", url: "https://staging.verify.invalid/v1/analyses?a=1&b=<2>", headers: { "x-api-key": "[redacted]" }, body: null },
        response: { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
        schema_path: "#/paths/~1v1~1analyses/get/responses/200/content/application~1json/schema",
        curl: `curl -sS -i -X GET 'https://staging.verify.invalid/v1/analyses?a=1&b=<2>' -H "x-api-key: $API_KEY"`,
      } }],
    groups: [],
    notices: [],
  };
}

/** `n` violations of one cause: one operation, rule and schema path, each message its own (a header left out on 4xx). */
function oneCause(n: number): Report {
  const r = sampleReport("x");
  const first = r.violations[0]!;
  r.violations = Array.from({ length: n }, (_, i) => ({ ...first, status: 400 + (i % 30), message: `X-RateLimit-Reset missing (${i})`, rule: "rate-limit-headers", count: 1 }));
  return r;
}

describe("one finding per cause", () => {
  it("the report groups violations by operation, rule and schema path, with a count and the first reproduction", () => {
    const report = oneCause(126);
    const groups = groupViolations(report.violations);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ operationId: "listAnalyses", rule: "rate-limit-headers", schema_path: report.violations[0]!.reproduction!.schema_path, count: 126, distinct: 126 });
    expect(groups[0]!.first).toBe(report.violations[0]);
  });

  it("the terminal shows at most four lines for a group, however many violations it holds", () => {
    const table = summaryTable(oneCause(126));
    const lines = table.slice(table.indexOf("listAnalyses  GET /v1/analyses  (")).split("\n").slice(1);
    expect(lines.filter((l) => l.startsWith("  ")).length).toBeLessThanOrEqual(4);
    expect(table).toContain("listAnalyses  GET /v1/analyses  (1 cause, 126 violations)");
    expect(table).toContain("  ✗ [rate-limit-headers] 400: X-RateLimit-Reset missing (0) — and 125 more like it (the JSON report lists all)");
  });
});

describe("JUnit XML", () => {
  it("is well-formed and keeps a message with markup, quotes and control characters readable", () => {
    const message = 'body <b>"bad"</b> & \u0001odd\u0000 — ünïcode';
    const xml = junitXml(sampleReport(message));
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (n) => ["testsuite", "testcase"].includes(n) }).parse(xml);
    const suite = doc.testsuites.testsuite[0];
    expect(suite.name).toBe("listAnalyses (GET /v1/analyses)");
    expect(suite.testcase.map((c: { name: string }) => c.name)).toEqual(["status-declared", "response-schema", "token-query"]);
    expect(suite.testcase[1].failure["#text"]).toBe('200: body <b>"bad"</b> & odd — ünïcode (×2)\n  GET /v1/analyses?a=1&b=<2>');
    expect(suite.testcase[2].skipped.message).toBe("a credential in a URL needs TLS or loopback (spec §5 rule 7)");
    expect([doc.testsuites.tests, doc.testsuites.failures, suite.skipped]).toEqual(["3", "1", "1"]);
  });

  it("the terminal table has a line per operation, then the violations grouped by operation with their reproduction", () => {
    const table = summaryTable(sampleReport("x"));
    expect(table).toMatch(/^listAnalyses\s+GET\s+\/v1\/analyses\s+checked\s+3\s+6\s+1\s+1$/m);
    expect(table).toContain(
      "listAnalyses  GET /v1/analyses  (1 cause, 1 violation)\n  ✗ [response-schema] 200: x (×2)\n      GET /v1/analyses?a=1&b=<2>\n" +
        "      at #/paths/~1v1~1analyses/get/responses/200/content/application~1json/schema\n" +
        `      curl -sS -i -X GET 'https://staging.verify.invalid/v1/analyses?a=1&b=<2>' -H "x-api-key: $API_KEY"`,
    );
  });
});

describe("docs/backend.md", () => {
  it("its rule table lists exactly the verifier's checks, in their order", () => {
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(createChecks(new ContractView(contract)).map((c) => c.name));
  });

  it("its JSON example has the report's shape", () => {
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!);
    const real = sampleReport("x");
    for (const k of Object.keys(example)) expect(Object.keys(real)).toContain(k);
    expect(Object.keys(example.violations[0]).sort()).toEqual(Object.keys(real.violations[0]!).sort());
    expect(Object.keys(example.operations[0]).sort()).toEqual(Object.keys(real.operations[0]!).sort());
    expect(Object.keys(example.violations[0].reproduction).sort()).toEqual(["curl", "request", "response", "schema_path"]);
  });
});

describe("redaction in a reproduction", () => {
  it("hides credentials only: the key, a JWT in Authorization and ?token=, never a cursor that looks like a JWT", () => {
    const view = new ContractView(contract);
    const operation = view.operations.find((o) => o.operationId === "listAnalyses")!;
    const cursor = "eyJhbGciOiJIUzI1NiJ9.eyJwYWdlIjoyfQ.c2lnbmF0dXJlLW9mLWN1cnNvcg";
    const url = `https://staging.verify.invalid/v1/analyses?cursor=${cursor}&limit=2&token=secret-token-value`;
    const e = {
      operation,
      request: { method: "GET", url, headers: { "x-api-key": "pk_test_abc", authorization: `Bearer ${cursor}` }, body: null },
      response: { status: 200, headers: new Headers({ "content-type": "application/json" }), body: new Uint8Array() },
      facts: {} as never,
    };
    const r = reproduction(view, createChecks(view), e, "pagination", [["pk_test_abc", "$API_KEY"], ["pk_test_other", "$API_KEY_B"]]);
    expect(r.request.url).toBe(`https://staging.verify.invalid/v1/analyses?cursor=${cursor}&limit=2&token=[redacted]`);
    expect(r.curl).toContain(`cursor=${cursor}&limit=2`);
    expect(r.curl).not.toContain("secret-token-value");
    expect(r.request.headers.authorization).toBe("Bearer [redacted-jwt]");
    expect(r.request.headers["x-api-key"]).toBe("[redacted]");
    const b = reproduction(view, createChecks(view), { ...e, request: { ...e.request, headers: { "x-api-key": "pk_test_other" } } }, "pagination", [["pk_test_other", "$API_KEY_B"]]);
    expect(b.curl).toContain('-H "x-api-key: $API_KEY_B"');
  });
});

describe("--replay verdicts", () => {
  const before = sampleReport("page 2 gives back the cursor it was asked with");
  before.violations[0]!.cases = ["pages"];
  before.violations[0]!.reproduction!.request.url = "https://staging.verify.invalid/v1/analyses?cursor=abc&limit=2";
  const after = (ran: string[]): Report => ({ ...sampleReport("x"), violations: [], ran });

  it("a case that no longer reaches its precondition (no page 2 after a restart) is not reproduced, never fixed", () => {
    const [v] = verdicts(before, after([runKey("listAnalyses", "pages", "response-schema", "GET", "https://h/v1/analyses?limit=2")]));
    expect(v!.verdict).toBe("not reproduced: precondition missing");
    expect(replaySummary([v!])).toContain("? not reproduced: precondition missing  listAnalyses");
  });

  it("the same request shape judged again without the violation is fixed", () => {
    const [v] = verdicts(before, after([runKey("listAnalyses", "pages", "response-schema", "GET", "https://h/v1/analyses?limit=2&cursor=zzz")]));
    expect(v!.verdict).toBe("fixed");
  });
});
