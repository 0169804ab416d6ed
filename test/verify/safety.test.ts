// The verifier is safe to point at a shared staging service: reads only unless --allow-writes (a write without
// credentials is the one exception: it is refused before any effect), no credential in a URL without TLS except on
// loopback (spec §5 rule 7), Retry-After honoured and bounded, requests paced and bounded in number.
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startDefectiveServer, type DefectiveServer } from "./fixtures/defective-server.js";
import { BUSINESS_KEY, LIMITED_KEY, listed, useMock } from "./helpers.js";

const mock = useMock();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function recorder(): Promise<DefectiveServer> {
  const s = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY });
  closers.push(s.close);
  return s;
}

/** A fetch that sends what the verifier asks of any host to the mock instead (less a base path), and remembers each URL. */
function redirectingFetch(urls: string[], basePath = ""): typeof fetch {
  return (input, init) => {
    const url = new URL(String(input));
    urls.push(url.href);
    return fetch(new URL(url.pathname.slice(basePath.length) + url.search, mock.g.url), init);
  };
}

describe("verify is safe by default", () => {
  it("without --allow-writes, a request that could change state is never sent with credentials", async () => {
    const s = await recorder();
    const report = await mock.run(s.url, { operations: "/v1/analyses*,/v1/speakers*,/v1/keys*" });
    expect(report.violations, listed(report)).toEqual([]);
    const writes = s.received.filter((r) => !["GET", "HEAD"].includes(r.method));
    expect(writes.length).toBeGreaterThan(0); // the no-credential checks of write operations
    expect(writes.filter((r) => r.credentials)).toEqual([]);
    expect(s.received.filter((r) => r.method === "GET" && r.credentials).length).toBeGreaterThan(0);
  });

  it("with --allow-writes, writes are sent with credentials", async () => {
    const s = await recorder();
    await mock.run(s.url, { allowWrites: true, operations: "createSpeaker,updateSpeaker,deleteSpeaker" });
    expect(new Set(s.received.filter((r) => r.credentials).map((r) => r.method))).toEqual(new Set(["POST", "PATCH", "DELETE"]));
  });

  it("never puts a credential in the URL of a plain-HTTP target that is not loopback (rule 7); does over TLS", async () => {
    const plain: string[] = [];
    const report = await mock.run("http://staging.verify.invalid", { operations: "listAnalyses", send: { fetch: redirectingFetch(plain) } });
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.filter((u) => u.includes("token=") || u.includes(BUSINESS_KEY))).toEqual([]);
    expect(report.operations[0]!.skipped).toEqual([{ case: "token-query", reason: "a credential in a URL needs TLS or loopback (spec §5 rule 7)" }]);
    expect(report.notices.join("\n")).toContain("is not TLS");

    const tls: string[] = [];
    await mock.run("https://staging.verify.invalid", { operations: "listAnalyses", send: { fetch: redirectingFetch(tls) } });
    expect(tls.filter((u) => u.startsWith("https://staging.verify.invalid/v1/analyses?token="))).toHaveLength(1);
  });

  it("a target under a base path keeps it", async () => {
    const urls: string[] = [];
    const report = await mock.run("https://staging.verify.invalid/api/", { operations: "getAnalysis", send: { fetch: redirectingFetch(urls, "/api") } });
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.every((u) => u.startsWith("https://staging.verify.invalid/api/v1/analyses/"))).toBe(true);
    expect(report.violations, listed(report)).toEqual([]);
  });
});

describe("verify does not hammer", () => {
  it("paces requests: at most --rps a second", async () => {
    const report = await mock.run(mock.g.url, { operations: "listAnalyses,getAnalysis", rps: 4 });
    expect(report.requests).toBeGreaterThan(5);
    expect(mock.sleeps).toHaveLength(report.requests - 1);
    expect(new Set(mock.sleeps)).toEqual(new Set([250]));
  });

  it("stops at --max-requests and reports the rest as skipped", async () => {
    const report = await mock.run(mock.g.url, { operations: "listAnalyses,getAnalysis", maxRequests: 5 });
    expect(report.requests).toBe(5);
    const skipped = report.operations.flatMap((o) => o.skipped);
    expect(skipped.length).toBeGreaterThan(0);
    expect(new Set(skipped.map((s) => s.reason))).toEqual(new Set(["the request budget (--max-requests 5) is used up"]));
  });

  it("honours Retry-After: waits as long as it says, then sends the request again", async () => {
    const report = await mock.run(mock.g.url, { apiKey: LIMITED_KEY, operations: "listAnalyses,getAnalysis,listSpeakers,getSpeaker" });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.checks.find((c) => c.rule === "retry-after")!.run).toBeGreaterThan(0);
    expect(mock.sleeps[0]).toBe(30_000); // 12:00:30, a minute window: Retry-After 30
    expect(report.operations.flatMap((o) => o.skipped)).toEqual([]);
    expect(report.waited_ms).toBe(mock.sleeps.reduce((a, b) => a + b, 0));
  });

  it("a Retry-After longer than the wait budget skips what waits on that limit, without waiting", async () => {
    let hits = 0;
    const limited = http.createServer((req, res) => {
      hits++;
      const body = JSON.stringify({ detail: "Daily limit of 500 requests exceeded.", error: "daily_limit_exceeded", limit: 500, window: "1 day", retry_after: 3600 });
      // A free-plan workspace out of its day: 30 a minute in general, 15 on the query category (/v1/reports).
      const rate = { "x-ratelimit-limit": req.url?.startsWith("/v1/reports") ? "15" : "30", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1790000000", "x-ratelimit-daily-limit": "500", "x-ratelimit-daily-remaining": "0" };
      const id = { "x-request-id": String(req.headers["x-request-id"] ?? "req_limited") }; // every answer echoes it (RQ1)
      res.writeHead(429, { "content-type": "application/json", "retry-after": "3600", "access-control-allow-origin": "*", ...rate, ...id }).end(body);
    });
    await new Promise<void>((r) => limited.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise<void>((r) => limited.close(() => r())));
    const url = `http://127.0.0.1:${(limited.address() as { port: number }).port}`;
    // The rate-limit probe (probes/limits.ts) is left out: it would send one more request a bucket, to count its 429.
    const report = await mock.run(url, { operations: "listAnalyses,getAnalysis,listReports", maxWaitSeconds: 60, rateLimitBudget: 0 });
    expect(mock.sleeps).toEqual([]);
    // One request per bucket (caller or anonymous × general or query category), then every other case is skipped.
    expect(hits).toBe(4);
    const reasons = new Set(report.operations.flatMap((o) => o.skipped.map((s) => s.reason)));
    expect(reasons).toEqual(new Set(["rate limited: waiting 3600 s more would pass the wait budget (--max-wait 60 s)"]));
    expect(report.violations, listed(report)).toEqual([]);
  });
});
