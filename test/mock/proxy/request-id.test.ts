// Proxy mode and the request id (issue 49, decision RQ3): the client's own X-Request-Id reaches the upstream as
// sent when it fits the contract's bounds; otherwise (none, or one too long) the proxy sends a fresh one in its
// place, and its own answers (502 for an upstream it cannot reach) carry the id it forwarded. An upstream whose
// answer has no X-Request-Id is listed as a departure; the answer still crosses unchanged.
import { describe, expect, it } from "vitest";
import { conformingHeaders, rawRequest, rulesOf, startProxy, startScripted } from "./helpers.js";

const KEY = "pk_test_demo_business";
const FRESH = /^req_[0-9a-f]{12}[0-9a-z]{6,}$/;
const idsOf = (raw: string[]) => raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === "x-request-id" ? [raw[i + 1]!] : []));

describe("proxy mode: X-Request-Id", () => {
  it("forwards a valid id as sent, replaces a bad one, adds one when none is sent", async () => {
    const upstream = await startScripted((req, res) => {
      res.writeHead(200, { ...conformingHeaders(), "X-Request-Id": String(req.headers["x-request-id"]), "Content-Type": "application/json" });
      res.end(JSON.stringify({ data: [], next_cursor: null, has_more: false }));
    });
    const proxy = await startProxy(upstream.url);
    try {
      for (const sent of ["trace-1", "x".repeat(200), undefined]) {
        const headers: Record<string, string> = { "X-API-Key": KEY, ...(sent ? { "X-Request-Id": sent } : {}) };
        const got = await rawRequest(`${proxy.url}/v1/analyses`, { headers });
        const forwarded = idsOf(upstream.received.at(-1)!.rawHeaders);
        expect(forwarded).toHaveLength(1);
        if (sent === "trace-1") expect(forwarded[0]).toBe("trace-1");
        else expect(forwarded[0]).toMatch(FRESH);
        expect(idsOf(got.rawHeaders)).toEqual(forwarded);
      }
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("lists an answer without X-Request-Id, and passes it on as it is", async () => {
    const upstream = await startScripted((_req, res) => {
      const { "X-Request-Id": _, ...others } = conformingHeaders();
      res.writeHead(200, { ...others, "Content-Type": "application/json" });
      res.end(JSON.stringify({ data: [], next_cursor: null, has_more: false }));
    });
    const proxy = await startProxy(upstream.url);
    try {
      const got = await rawRequest(`${proxy.url}/v1/analyses`, { headers: { "X-API-Key": KEY } });
      expect(got.status).toBe(200);
      expect(idsOf(got.rawHeaders)).toEqual([]);
      const v = await proxy.violations();
      expect(rulesOf(v)).toContain("response-headers");
      expect(JSON.stringify(v)).toContain("X-Request-Id");
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("its own 502 carries the id it would have forwarded", async () => {
    const upstream = await startScripted(() => undefined);
    const url = upstream.url;
    await upstream.close();
    const proxy = await startProxy(url);
    try {
      const got = await rawRequest(`${proxy.url}/v1/analyses`, { headers: { "X-API-Key": KEY, "X-Request-Id": "trace-502" } });
      expect(got.status).toBe(502);
      expect(idsOf(got.rawHeaders)).toEqual(["trace-502"]);
    } finally {
      await proxy.close();
    }
  });
});
