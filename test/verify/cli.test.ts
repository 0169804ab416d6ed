// `npm run verify`: exit status 0 without violations, 1 with, 2 for usage errors with a clear message; the JSON
// report and JUnit XML it writes are well-formed and say the same as the run.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../scripts/verify/verify.js";
import { redactReport } from "../../src/verify/report.js";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import type { Report } from "../../src/verify/index.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { startDefectiveServer } from "./fixtures/defective-server.js";
import { HAR_1_2_SCHEMA } from "./fixtures/har-schema.js";
import { BUSINESS_KEY, useMock } from "./helpers.js";

const mock = useMock();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verify-cli-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function npmVerify(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", "verify", "--", ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function inProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t), env });
  return { code, out, err };
}

const parseXml = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (name) => ["testsuite", "testcase"].includes(name) }).parse(xml);

describe("npm run verify", () => {
  it("exits 0 on a conforming service and writes a JSON report and JUnit XML that agree with it", async () => {
    const json = path.join(dir, "ok.json");
    const xml = path.join(dir, "out/ok.xml");
    const r = await npmVerify(["--target", mock.g.url, "--operations", "listAnalyses,getAnalysis", "--rps", "1000", "--report", json, "--junit", xml], { VERIFY_API_KEY: BUSINESS_KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^listAnalyses\s+GET\s+\/v1\/analyses\s+checked\s+\d+\s+\d+\s+0\s+0$/m);
    const report = JSON.parse(fs.readFileSync(json, "utf8")) as Report;
    expect(report.target).toBe(mock.g.url);
    expect(report.violations).toEqual([]);
    expect(report.operations.map((o) => o.operationId)).toEqual(["listAnalyses", "getAnalysis"]);
    const text = fs.readFileSync(xml, "utf8");
    expect(XMLValidator.validate(text)).toBe(true);
    const suites = parseXml(text).testsuites;
    expect(Number(suites.failures)).toBe(0);
    const ranPerOperation = report.operations.map((o) => Object.keys(o.checks).length);
    expect(suites.testsuite.map((s: { testcase: unknown[] }) => s.testcase.length)).toEqual(ranPerOperation);
    expect(Number(suites.tests)).toBe(ranPerOperation.reduce((a, b) => a + b, 0));
  });

  it("exits 1 when the service departs from the contract; report and JUnit name the violation", async () => {
    const server = await startDefectiveServer({ upstream: mock.g.url, defect: "wrong-body-type", key: BUSINESS_KEY });
    try {
      const json = path.join(dir, "bad.json");
      const xml = path.join(dir, "bad.xml");
      const r = await npmVerify(["--target", server.url, "--api-key", BUSINESS_KEY, "--operations", "listAnalyses", "--rps", "1000", "--report", json, "--junit", xml]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toContain("listAnalyses  GET /v1/analyses  (1 cause, 1 violation)\n  ✗ [response-schema] 200: 200 body does not match its schema: /has_more must be boolean");
      // The keyword that failed, in the component schema that holds it (ajv names it relative to that schema).
      expect(r.stdout).toMatch(/\n {6}at #\/components\/schemas\/AnalysisList\/properties\/has_more\/type\n {6}curl -sS -i -X GET '[^']+\/v1\/analyses[^']*' .*-H "x-api-key: \$API_KEY"/);
      expect(r.stdout).not.toContain(BUSINESS_KEY);
      const report = JSON.parse(fs.readFileSync(json, "utf8")) as Report;
      expect(report.violations.map(({ operationId, method, path, status, rule }) => ({ operationId, method, path, status, rule }))).toEqual([
        { operationId: "listAnalyses", method: "GET", path: "/v1/analyses", status: 200, rule: "response-schema" },
      ]);
      const suites = parseXml(fs.readFileSync(xml, "utf8")).testsuites;
      const failed = suites.testsuite[0].testcase.filter((c: { failure?: unknown }) => c.failure);
      expect(failed.map((c: { name: string }) => c.name)).toEqual(["response-schema"]);
      expect(failed[0].failure["#text"]).toContain("/has_more must be boolean");
    } finally {
      await server.close();
    }
  });

  it("--replay sends only the failed cases again: exit 1 while the defect stays, exit 0 and 'fixed' once it is gone", async () => {
    const broken = await startDefectiveServer({ upstream: mock.g.url, defect: "pages-never-end", key: BUSINESS_KEY });
    const fixed = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
    try {
      const json = path.join(dir, "pages.json");
      const first = await inProcess(["--target", broken.url, "--api-key", BUSINESS_KEY, "--operations", "listAnalyses", "--rps", "1000", "--report", json, "--quiet"]);
      expect(first.code, first.err).toBe(1);
      const sentBefore = broken.received.length;
      const again = await inProcess(["--replay", json, "--api-key", BUSINESS_KEY, "--rps", "1000", "--quiet"]);
      expect(again.code, again.err).toBe(1);
      expect(again.out).toContain("Replay: 0 of 2 violation(s) fixed.\n  ✗ still failing  listAnalyses [pagination]");
      // Only the page walk went out again, not the run's other cases.
      expect(broken.received.slice(sentBefore).every((r) => r.path.startsWith("/v1/analyses?") && /limit=2/.test(r.path))).toBe(true);
      const done = await inProcess(["--replay", json, "--target", fixed.url, "--api-key", BUSINESS_KEY, "--rps", "1000", "--quiet"]);
      expect(done.code, done.out).toBe(0);
      expect(done.out).toContain("Replay: 2 of 2 violation(s) fixed.\n  ✓ fixed  listAnalyses [pagination]");
      expect(fixed.received.length).toBeLessThan(10);
    } finally {
      await broken.close();
      await fixed.close();
    }
  });

  it("--replay of a file that is not a report is a usage error naming it", async () => {
    const bad = path.join(dir, "not-a-report.json");
    fs.writeFileSync(bad, JSON.stringify({ violations: [{ rule: "x" }], target: "http://127.0.0.1:1" }));
    const r = await inProcess(["--replay", bad, "--api-key", "k"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--replay ${bad}: violations[0] has no operationId, rule and cases`);
  });

  it("exits 2 with a clear message for a usage error", async () => {
    const r = await inProcess(["--target", "ftp://example.invalid", "--api-key", "k"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("verify: --target must be an http:// or https:// URL, not ftp://…\nRun npm run verify -- --help for the options.\n");
  });

  const closedPort = async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const { port } = s.address() as { port: number };
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  };

  it.each([
    [[], "--target URL is required"],
    [["--target", "http://127.0.0.1:1"], "credentials are needed: --api-key KEY or --token JWT"],
    [["--target", "mailto:a@b.invalid", "--api-key", "k"], "--target must be an http:// or https:// URL, not mailto:"],
    [["--target", "not a url", "--api-key", "k"], 'is not a URL'],
    [["--target", "http://127.0.0.1:1", "--api-key", "k", "--token", "t"], "give one of --api-key and --token, not both"],
    [["--target", "http://127.0.0.1:1", "--api-key", "k", "--stateful"], "--stateful creates, updates and deletes resources: it needs --allow-writes"],
    [["--target", "http://127.0.0.1:1", "--api-key", "k", "--operations", "noSuchOperation"], '--operations: "noSuchOperation" matches no operation'],
    [["--target", "http://127.0.0.1:1", "--api-key", "k", "--rps", "0"], '--rps must be a number > 0, not "0"'],
    [["--target", "http://127.0.0.1:1", "--api-key", "k", "--max-requests", "lots"], '--max-requests must be a whole number ≥ 1, not "lots"'],
    [["--target", "http://127.0.0.1:1", "--bogus"], "Unknown option '--bogus'"],
  ])("usage error %j", async (args, message) => {
    const r = await inProcess(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).toBe("");
  });

  it("an unreachable target is a usage error, not a violation", async () => {
    const r = await inProcess(["--target", `http://127.0.0.1:${await closedPort()}`, "--api-key", "k", "--operations", "listAnalyses"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it("credentials the service refuses are a usage error, named as such", async () => {
    const r = await inProcess(["--target", mock.g.url, "--api-key", "pk_test_unknown_key_0001", "--operations", "listAnalyses", "--rps", "1000"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("refused the credentials (401 to GET /v1/analyses): check --api-key or --token");
  });

  it("--help lists every option and exits 0", async () => {
    const r = await inProcess(["--help"]);
    expect(r.code).toBe(0);
    for (const o of ["--target", "--api-key", "--token", "--operations", "--allow-writes", "--stateful", "--report", "--junit", "--har", "--input-budget", "--rps", "--max-requests", "--max-wait"]) expect(r.out).toContain(o);
  });
});

describe("verify's report files (issue 47)", () => {
  it("are created 0600 and name no credential: the --api-key, nor a created key's secret", async () => {
    const json = path.join(dir, "secret.json");
    const xml = path.join(dir, "secret.xml");
    fs.writeFileSync(json, "old"); // an existing file is made 0600 too
    fs.chmodSync(json, 0o644);
    const r = await inProcess(["--target", mock.g.url, "--api-key", BUSINESS_KEY, "--operations", "createApiKey,listApiKeys", "--allow-writes", "--rps", "1000", "--report", json, "--junit", xml]);
    expect(r.code, r.err).not.toBe(2);
    for (const f of [json, xml]) {
      expect((fs.statSync(f).mode & 0o777).toString(8), f).toBe("600");
      const text = fs.readFileSync(f, "utf8");
      expect(text).not.toContain(BUSINESS_KEY);
      expect(text).not.toMatch(/pk_(live|test)_(?!\[redacted\])[0-9A-Za-z]{4}/);
    }
  });

  it("--har writes every exchange as HAR 1.2, 0600, credentials redacted as in the JSON report (issue 46)", async () => {
    const har = path.join(dir, "run.har");
    const json = path.join(dir, "run.json");
    const r = await inProcess(["--target", mock.g.url, "--api-key", BUSINESS_KEY, "--operations", "createApiKey,listApiKeys,createSpeaker", "--allow-writes", "--rps", "1000", "--har", har, "--report", json]);
    expect(r.code, r.err).toBe(0);
    expect((fs.statSync(har).mode & 0o777).toString(8)).toBe("600");
    const text = fs.readFileSync(har, "utf8");
    const doc = JSON.parse(text);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const valid = ajv.validate(HAR_1_2_SCHEMA, doc);
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors?.slice(0, 3))).toEqual([]);
    expect(valid).toBe(true);
    const report = JSON.parse(fs.readFileSync(json, "utf8")) as Report;
    // Every request the report counts is an entry, in the order sent.
    expect(doc.log.entries).toHaveLength(report.requests);
    const starts = doc.log.entries.map((e: { startedDateTime: string }) => Date.parse(e.startedDateTime));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // The credential: its header redacted, nowhere in clear; a created key's secret redacted in the answer's body.
    expect(text).not.toContain(BUSINESS_KEY);
    expect(text).not.toMatch(/pk_(live|test)_(?!\[redacted\])[0-9A-Za-z]{4}/);
    const keyed = doc.log.entries.flatMap((e: { request: { headers: Array<{ name: string; value: string }> } }) => e.request.headers.filter((h) => h.name === "x-api-key"));
    expect(keyed.length).toBeGreaterThan(0);
    expect(new Set(keyed.map((h: { value: string }) => h.value))).toEqual(new Set(["[redacted]"]));
    const created = doc.log.entries.find((e: { request: { method: string; url: string }; response: { status: number } }) => e.request.method === "POST" && e.request.url.endsWith("/v1/keys") && e.response.status === 201);
    expect(created.response.content.text).toMatch(/"secret":\s*"\[redacted\]"/);
    // The raw requests (a control byte in a header value) are entries too.
    expect(doc.log.entries.some((e: { request: { headers: Array<{ value: string }> } }) => e.request.headers.some((h) => h.value.includes("\x01")))).toBe(true);
  });

  it("redactReport hides credentials in headers, bodies and curl lines", () => {
    const key = "pk_live_Upstream0123456789abcdefABCDEF";
    const text = JSON.stringify({
      request: { headers: { "x-api-key": key }, body: `{"secret":"${key}","access_token":"eyJhbGciOi.x.y"}` },
      curl: `curl -sS -H "X-API-Key: ${key}" -H "Authorization: Bearer tok-given-on-the-command-line"`,
    });
    const out = redactReport(text, ["tok-given-on-the-command-line"]);
    expect(out).not.toContain("Upstream0123");
    expect(out).not.toContain("eyJhbGciOi");
    expect(out).not.toContain("tok-given-on-the-command-line");
    expect(out).toContain("[redacted]");
  });
});
