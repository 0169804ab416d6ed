// The checks on single exchanges, without the CLI or a server: what the gateway's proxy mode will do with live
// traffic. Each rule's edges: what passes, what is reported, and where it does not apply.
import { describe, expect, it } from "vitest";
import { checkExchange, ContractView, createChecks, globToRegExp, isLoopback, parseTarget, selectOperations, VerifyUsageError } from "../../../src/verify/index.js";
import { fitsPolicy } from "../../../src/verify/checks/rate-limit-semantics.js";
import { toReservedHosts, ValueGenerator } from "../../../src/verify/requests/generate.js";
import type { Operation, ScenarioStep } from "../../../src/verify/types.js";
import { contract, policy } from "../../helpers/mock.js";

const view = new ContractView(contract);
const op = (id: string): Operation => view.operations.find((o) => o.operationId === id)!;
const RATE = { "access-control-allow-origin": "*", "x-request-id": "req_abc", "x-ratelimit-limit": "300", "x-ratelimit-remaining": "299", "x-ratelimit-reset": "1790000040", "x-ratelimit-daily-limit": "50000", "x-ratelimit-daily-remaining": "49000" };
const LIST = { data: [], next_cursor: null, has_more: false };

interface Pair {
  operationId: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  responseHeaders?: Record<string, string>;
  response?: unknown;
  scenario?: ScenarioStep;
}

/** Runs every check (a fresh set, or `checks`) on one exchange; returns the violations by rule. */
async function judge(p: Pair, checks = createChecks(view)): Promise<Record<string, string[]>> {
  const operation = op(p.operationId);
  const body = p.response === undefined ? "" : typeof p.response === "string" ? p.response : JSON.stringify(p.response);
  const { results } = await checkExchange(view, checks, {
    operation,
    request: { method: p.method ?? operation.method.toUpperCase(), url: `http://127.0.0.1:1${p.url ?? operation.template}`, headers: p.headers ?? { "x-api-key": "pk_test_k" }, body: p.body ? Buffer.from(p.body) : null },
    response: { status: p.status, headers: new Headers({ "content-type": "application/json", ...RATE, ...p.responseHeaders }), body: Buffer.from(body) },
    ...(p.scenario ? { scenario: p.scenario } : {}),
  });
  return Object.fromEntries(results.filter((r) => r.violations.length).map((r) => [r.rule, r.violations]));
}

describe("response checks on one exchange", () => {
  it("a conforming answer breaks no rule", async () => {
    expect(await judge({ operationId: "listAnalyses", status: 200, response: LIST })).toEqual({});
  });

  it("status-declared, content-type-declared, response-schema", async () => {
    expect(await judge({ operationId: "listAnalyses", status: 418, response: { detail: "teapot" } })).toEqual({
      "status-declared": ["status 418 is not declared for GET /v1/analyses (declared: 200, 400, 401, 403, 422, 429, 500)"],
    });
    expect(await judge({ operationId: "listAnalyses", status: 200, response: LIST, responseHeaders: { "content-type": "text/html" } })).toEqual({
      "content-type-declared": ["Content-Type text/html is not declared for 200 (declared: application/json)"],
    });
    expect(await judge({ operationId: "listAnalyses", status: 200, response: { ...LIST, has_more: 1 } })).toEqual({
      "response-schema": ["200 body does not match its schema: /has_more must be boolean"],
    });
    expect(await judge({ operationId: "listAnalyses", status: 200, response: LIST, responseHeaders: { "content-type": "" } })).toEqual({
      "content-type-declared": ["200 has a body but no Content-Type (declared: application/json)"],
    });
  });

  it("rate-limit-headers on every response of a rate-limited operation, none on /health", async () => {
    const missing = await judge({ operationId: "listAnalyses", status: 200, response: LIST, responseHeaders: { "x-ratelimit-daily-remaining": "many" } });
    expect(missing["rate-limit-headers"]).toEqual(['X-RateLimit-Daily-Remaining is "many", not a non-negative integer']);
    const health = { status: "ok", service: "gateway", uptime_seconds: 1, checked_at: "2026-11-21T12:00:30Z" };
    const { results } = await checkExchange(view, createChecks(view), {
      operation: op("getGatewayHealth"),
      request: { method: "GET", url: "http://127.0.0.1:1/health", headers: {}, body: null },
      response: { status: 200, headers: new Headers({ "content-type": "application/json", "access-control-allow-origin": "*", "x-request-id": "req_abc" }), body: Buffer.from(JSON.stringify(health)) },
    });
    expect(results.map((r) => r.rule)).not.toContain("rate-limit-headers");
    expect(results.every((r) => r.violations.length === 0)).toBe(true);
  });

  it("retry-after: present, whole seconds, and the body's retry_after within a second of it", async () => {
    const body = (s: number) => ({ detail: "Rate limit of 300 requests per minute exceeded.", error: "rate_limit_exceeded", limit: 300, window: "1 minute", retry_after: s });
    const at = (header: string | null, s: number) => judge({ operationId: "listAnalyses", status: 429, response: body(s), responseHeaders: header === null ? {} : { "retry-after": header } });
    expect((await at("30", 30))["retry-after"]).toBeUndefined();
    expect((await at("31", 30))["retry-after"]).toBeUndefined();
    expect((await at("40", 30))["retry-after"]).toEqual(["Retry-After is 40 s but the body's retry_after is 30 s"]);
    expect((await at("Wed, 21 Oct 2026 07:28:00 GMT", 30))["retry-after"]).toEqual(['Retry-After is "Wed, 21 Oct 2026 07:28:00 GMT", not whole seconds']);
    expect((await at(null, 30))["retry-after"]).toEqual(["429 lacks the Retry-After header"]);
  });

  it("error-body: detail a string, an array for 422; undeclared errors too", async () => {
    expect((await judge({ operationId: "listAnalyses", status: 404, response: { error: "nope" } }))["error-body"]).toEqual(["error 404 has no detail field"]);
    expect((await judge({ operationId: "listAnalyses", url: "/v1/analyses?limit=0", status: 422, response: { detail: "limit too small" } }))["error-body"]).toEqual([
      "422 detail is a string, not an array of the invalid fields",
    ]);
    expect((await judge({ operationId: "listAnalyses", status: 500, response: "<h1>oops</h1>", responseHeaders: { "content-type": "text/html" } }))["error-body"]).toEqual([
      'error 500: the body is not JSON: "<h1>oops</h1>"',
    ]);
  });

  it("response-schema reads an event stream event by event, leaving out one cut short", async () => {
    const stream = 'id: 1\nevent: status\ndata: {"status":"processing"}\n\nid: 2\nevent: status\ndata: {"stat';
    const found = await judge({ operationId: "streamAnalysisEvents", url: "/v1/analysis/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/stream", status: 200, response: stream, responseHeaders: { "content-type": "text/event-stream" } });
    expect(found["response-schema"]).toEqual([expect.stringMatching(/^event status \(id 1\) does not match its schema: /)]);
  });
});

describe("request checks: what the request itself shows", () => {
  const none = {};
  it("auth-enforced and token-query-rejected, judged from the credentials the request carries", async () => {
    expect((await judge({ operationId: "listAnalyses", headers: none, status: 200, response: LIST }))["auth-enforced"]).toEqual(["answered 200 to a request without credentials; expected 401"]);
    expect(await judge({ operationId: "listAnalyses", headers: none, status: 429, response: { detail: "x", error: "rate_limit_exceeded", limit: 30, window: "1 minute", retry_after: 3 }, responseHeaders: { "retry-after": "3" } })).toEqual({});
    expect((await judge({ operationId: "listAnalyses", url: "/v1/analyses?token=pk_test_k", headers: none, status: 200, response: LIST }))["token-query-rejected"]).toEqual([
      "accepted a token query parameter on a REST operation (answered 200); expected 401",
    ]);
    // On the SSE operation the token is a credential.
    const sse = await judge({ operationId: "streamAnalysisEvents", url: "/v1/analysis/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/stream?token=pk_test_k", headers: none, status: 200, response: "", responseHeaders: { "content-type": "text/event-stream" } });
    expect(sse).toEqual({});
  });

  it("invalid-input-rejected: 422 with items; 404 only for a bad path id; 403 and 429 do not answer", async () => {
    const bad = { operationId: "listAnalyses", url: "/v1/analyses?limit=abc" };
    const items = { detail: [{ loc: ["query", "limit"], msg: "must be integer", type: "type" }] };
    expect(await judge({ ...bad, status: 422, response: items })).toEqual({});
    expect((await judge({ ...bad, status: 200, response: LIST }))["invalid-input-rejected"]).toEqual(["answered 200 to invalid input (query.limit must be an integer); expected 422"]);
    expect((await judge({ ...bad, status: 400, response: { detail: "bad" } }))["invalid-input-rejected"]).toEqual(["answered 400 to invalid input (query.limit must be an integer); expected 422"]);
    expect(await judge({ ...bad, status: 403, response: { detail: "frozen" } })).toEqual({});
    const path = { operationId: "getAnalysis", url: "/v1/analyses/not-an-id" };
    expect(await judge({ ...path, status: 404, response: { detail: "Analysis not found." } })).toEqual({});
  });

  it("valid-input-accepted and malformed-json-rejected", async () => {
    expect((await judge({ operationId: "listAnalyses", url: "/v1/analyses?limit=5", status: 422, response: { detail: [{ loc: ["query", "limit"], msg: "no", type: "x" }] } }))["valid-input-accepted"]).toEqual([
      "answered 422 to a request that is valid by the contract",
    ]);
    const broken = { operationId: "createSpeaker", headers: { "x-api-key": "pk_test_k", "content-type": "application/json" }, body: '{"name": ' };
    expect(await judge({ ...broken, status: 400, response: { detail: "Request body is not valid JSON." } })).toEqual({});
    expect((await judge({ ...broken, status: 422, response: { detail: [{ loc: ["body"], msg: "x", type: "x" }] } }))["malformed-json-rejected"]).toEqual([
      "answered 422 to a body that is not valid JSON; expected 400",
    ]);
  });
});

describe("rate-limit-semantics over a run", () => {
  const category = (name: string) => policy.categories.find((c) => c.name === name)!;
  const caller = (limits: Record<string, number>, dailyLimit: number) => ({
    limits: new Map(Object.entries(limits)),
    categories: new Map(Object.keys(limits).map((n) => [n, category(n)])),
    dailyLimit,
  });

  it("fits a plan, with or without a key cap, and nothing else", () => {
    expect(fitsPolicy(policy, caller({ general: 300, query: 150 }, 50_000))).toBe(true); // business
    expect(fitsPolicy(policy, caller({ general: 10, query: 10 }, 10_000))).toBe(true); // pro, key capped at 10
    expect(fitsPolicy(policy, caller({ general: 100, query: 75 }, 10_000))).toBe(true); // pro, key capped at 100
    expect(fitsPolicy(policy, caller({ general: 300, query: 300 }, 50_000))).toBe(false); // multiplier not applied
    expect(fitsPolicy(policy, caller({ general: 150 }, 50_000))).toBe(true); // business under a 150 cap
    expect(fitsPolicy(policy, caller({ general: 301 }, 50_000))).toBe(false); // more than any plan
    expect(fitsPolicy(policy, caller({ general: 300 }, 10_000))).toBe(false); // daily limit of another plan
  });

  it("Remaining counts down within a window, may start again in the next, never exceeds Limit", async () => {
    const checks = createChecks(view);
    const at = (remaining: number, reset = 1790000040) => judge({ operationId: "listAnalyses", status: 200, response: LIST, responseHeaders: { "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": String(reset) } }, checks);
    expect(await at(299)).toEqual({});
    expect(await at(298)).toEqual({});
    expect((await at(298))["rate-limit-semantics"]).toEqual([expect.stringContaining("X-RateLimit-Remaining stayed at 298 after a successful request")]);
    expect((await at(299))["rate-limit-semantics"]).toEqual([expect.stringContaining("went up within one window (X-RateLimit-Reset 1790000040, general): 298, then 299")]);
    expect(await at(299, 1790000100)).toEqual({}); // the next minute
    expect((await at(301, 1790000160))["rate-limit-semantics"]).toEqual(["X-RateLimit-Remaining 301 exceeds X-RateLimit-Limit 300"]);
  });
});

describe("crud-roundtrip on its steps", () => {
  const step = (s: Partial<ScenarioStep>): ScenarioStep => ({ group: "/v1/keys", step: "read", id: "key_01HZX6C8E2G4J6K8N0Q2S4T6W8", ...s });
  const key = { id: "key_01HZX6C8E2G4J6K8N0Q2S4T6W8", name: "CRM sync", revoked_at: null };
  it("read after delete: 404, or the soft-delete timestamp set", async () => {
    const read = { operationId: "getApiKey", url: "/v1/keys/key_01HZX6C8E2G4J6K8N0Q2S4T6W8", status: 200 };
    expect((await judge({ ...read, status: 404, response: { detail: "gone" }, scenario: step({ step: "read-deleted" }) }))["crud-roundtrip"]).toBeUndefined();
    const soft = step({ step: "read-deleted", softDeleteField: "revoked_at" });
    expect((await judge({ ...read, response: { ...key, revoked_at: "2026-11-21T12:00:31Z" }, scenario: soft }))["crud-roundtrip"]).toBeUndefined();
    expect((await judge({ ...read, response: key, scenario: soft }))["crud-roundtrip"]).toEqual([
      "read after delete: key_01HZX6C8E2G4J6K8N0Q2S4T6W8 answered 200 with revoked_at null; expected 404, or revoked_at set",
    ]);
    expect((await judge({ ...read, response: key, scenario: step({ step: "read", sent: { name: "CRM sync", secret_hint: "x" } }) }))["crud-roundtrip"]).toBeUndefined();
    expect((await judge({ ...read, response: key, scenario: step({ step: "read", sent: { name: "Other" } }) }))["crud-roundtrip"]).toEqual([
      'read after create: name was sent as "Other" but reads "CRM sync"',
    ]);
  });
});

describe("targets, selection, generated values", () => {
  it("targets: http(s) only; loopback is 127.0.0.0/8, ::1 and localhost", () => {
    expect(parseTarget("https://staging.example.com/api/").base).toBe("https://staging.example.com/api");
    for (const bad of ["ftp://x.invalid", "ws://127.0.0.1", "file:///etc/passwd", "https://u:p@x.invalid", "https://x.invalid/?a=1"]) expect(() => parseTarget(bad)).toThrow(VerifyUsageError);
    expect(["127.0.0.1", "127.1.2.3", "localhost", "[::1]", "api.localhost"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "128.0.0.1", "example.com", "127.0.0.1.example.com"].some(isLoopback)).toBe(false);
  });

  it("--operations: globs over operationIds, templates and METHOD template", () => {
    const ids = (p: string) => selectOperations(view.operations, p).map((o) => o.operationId).sort();
    expect(ids("listAnalyses")).toEqual(["listAnalyses"]);
    expect(ids("/v1/speakers/{speaker_id}")).toEqual(["deleteSpeaker", "getSpeaker", "updateSpeaker"]);
    expect(ids("DELETE /v1/speakers*,getSpeaker")).toEqual(["deleteSpeaker", "getSpeaker"]);
    expect(ids("list*Speakers")).toEqual(["listAnalysisSpeakers", "listSpeakers"]);
    expect(globToRegExp("/v1/a?c").test("/v1/abc")).toBe(true);
    expect(() => ids("nothing*here")).toThrow('--operations: "nothing*here" matches no operation');
  });

  it("generated values are valid, and reach no real host", () => {
    const gen = new ValueGenerator(view, 7);
    const validate = view.bodyValidator({ $ref: "#/components/schemas/WebhookCreate" });
    for (let n = 1; n <= 5; n++) {
      const v = gen.value({ $ref: "#/components/schemas/WebhookCreate" }, n) as { url: string };
      expect(validate(v)).toBe(true);
      expect(new URL(v.url).hostname.endsWith(".invalid")).toBe(true);
    }
    expect(toReservedHosts({ a: ["https://media.example.com/x.mp3", "ops@example.com", "plain"] })).toEqual({ a: ["https://host.verify.invalid/x.mp3", "ops@verify.invalid", "plain"] });
    // A URL made from a pattern rather than a format is moved too; if that breaks the pattern, no value is better.
    for (let n = 1; n <= 3; n++) {
      const v = gen.value({ type: "string", pattern: "^https://[a-z]{3,8}\\.(com|net)/[a-z]{1,5}$" }, n);
      expect(v === undefined || new URL(String(v)).hostname.endsWith(".invalid"), String(v)).toBe(true);
    }
  });

  it("generated values stay sample-sized whatever bound the contract states (a raw upload may be 2 GiB)", () => {
    const gen = new ValueGenerator(view, 7);
    const upload = gen.value({ type: "string", contentMediaType: "application/octet-stream", maxLength: 2 ** 31 }, 1);
    expect(String(upload).length).toBeLessThanOrEqual(40);
    const list = gen.value({ type: "array", minItems: 2, maxItems: 100_000, items: { type: "string", minLength: 5, maxLength: 500_000 } }, 1) as string[];
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(list.length).toBeLessThanOrEqual(3);
    for (const item of list) expect(item.length).toBeGreaterThanOrEqual(5);
    for (const item of list) expect(item.length).toBeLessThanOrEqual(40);
  });
});

describe("request-id-echoed (issue 49)", () => {
  const sent = (id: string, got?: string) =>
    judge({ operationId: "listAnalyses", status: 200, response: LIST, headers: { "x-api-key": "pk_test_k", "x-request-id": id }, responseHeaders: got === undefined ? {} : { "x-request-id": got } });
  it("an echoed id, and a bad one replaced, pass", async () => {
    expect(await sent("trace-1", "trace-1")).toEqual({});
    expect(await sent("two words", "req_0123456789abcdef")).toEqual({});
  });
  it("a valid id not echoed, and a bad one echoed, are reported", async () => {
    expect((await sent("trace-1", "req_other"))["request-id-echoed"]).toEqual(['sent X-Request-Id: "trace-1" came back as "req_other"; expected it echoed']);
    expect(Object.keys(await sent("x".repeat(129), "x".repeat(129)))).toContain("request-id-echoed");
  });
  it("an answer without one is response-headers' finding", async () => {
    const rules = await judge({ operationId: "listAnalyses", status: 200, response: LIST, responseHeaders: { "x-request-id": "" } });
    expect(Object.keys(rules)).toEqual(["response-headers"]);
  });
});
