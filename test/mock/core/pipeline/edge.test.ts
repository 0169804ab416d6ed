// Edge hardening at the gateway (issue 15; decisions G20 and after in docs/decisions/edge.md): the viewer's assets are a
// fixed set, quoted paths are cut short, and HTTP itself is taken as RFC 9112 says (one Host, absolute-form
// targets), with every answer under the API's prefixes carrying the rate-limit headers, refused WebSocket
// handshakes and requests node:http could not parse included.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHALLENGES } from "../../../../src/mock/core/access/auth.js";
import { MAX_LOC_CHARACTERS } from "../../../../src/mock/core/contract/issues.js";
import { SwaggerAssetFiles } from "../../../../src/mock/core/stages/own-paths.js";
import { readSwaggerAsset, SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE, SWAGGER_UI_DIR, swaggerPage } from "../../../../src/mock/homes/node/swagger.js";
import { header, rawExchange, rawRequest, type RawResponse } from "../../../helpers/robustness/http.js";
import { contract, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const randomName = (n: number) => randomBytes(n).toString("base64url").slice(0, n);

describe("the viewer's assets", () => {
  it("are exactly the files the page uses, read at start; a lookup of any other name keeps nothing", () => {
    const files = new SwaggerAssetFiles(readSwaggerAsset);
    const used = [...swaggerPage(contract.doc).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith(`${SWAGGER_ASSETS_DIR}/`));
    expect(new Set(used)).toEqual(new Set([...Object.keys(SWAGGER_ASSETS), SWAGGER_INIT_FILE].map((f) => `${SWAGGER_ASSETS_DIR}/${f}`)));
    expect(files.size).toBe(used.length);
    for (const u of used) expect(files.lookup(`/${u}`)?.status, u).toBe(200);
    // The other files of swagger-ui-dist are not served, nor are names the page never asks for.
    const others = fs.readdirSync(SWAGGER_UI_DIR).filter((f) => !used.includes(`${SWAGGER_ASSETS_DIR}/${f}`));
    expect(others.length).toBeGreaterThan(0);
    for (const f of others) expect(files.lookup(`/${SWAGGER_ASSETS_DIR}/${f}`), f).toBeUndefined();
    for (let i = 0; i < 1000; i++) expect(files.lookup(`/${SWAGGER_ASSETS_DIR}/${randomName(16_000)}`)).toBeUndefined();
    expect(files.size).toBe(used.length);
  });

  it("a miss under /swagger-ui/ answers 404 with a short detail, uncounted like every path outside the API", async () => {
    const base = new URL(g.url);
    for (let i = 0; i < 20; i++) {
      const res = await rawRequest(base, { method: "GET", path: `/${SWAGGER_ASSETS_DIR}/${randomName(16_000)}` });
      expect(res.status).toBe(404);
      const body = JSON.parse(res.body.toString());
      expect(body.detail.length).toBeLessThan(400);
      expect(header(res, contract.policy.headers.limit)).toBeUndefined();
    }
    const asset = await rawRequest(base, { method: "GET", path: `/${SWAGGER_ASSETS_DIR}/swagger-ui.css` });
    expect([asset.status, header(asset, "content-type")]).toEqual([200, "text/css; charset=utf-8"]);
  });
});

describe("what errors quote back is cut short", () => {
  const pro = { "X-API-Key": "pk_test_demo_business" };
  const detailMax = contract.doc.components.schemas.Error.properties.detail.maxLength as number;
  const locMax = contract.doc.components.schemas.ValidationErrorItem.properties.loc.items.oneOf[0].maxLength as number;

  it("a quoted path is at most 200 characters, ending in an ellipsis, in 404 and 405 details, and Error.detail allows 4,000", async () => {
    const long = "x".repeat(16_000);
    const cases: Array<[string, string, number]> = [
      ["GET", `/nowhere/${long}`, 404],
      ["GET", `/v1/${long}`, 404],
      ["PUT", `/v1/analyses/${long}`, 405],
    ];
    for (const [method, path, status] of cases) {
      const res = await fetch(g.url + path, { method, headers: pro });
      const body = await res.json();
      expect(res.status, path.slice(0, 20)).toBe(status);
      const quoted = /(\/\S*…)/.exec(body.detail)?.[1];
      expect(quoted, body.detail.slice(0, 100)).toBeDefined();
      expect(quoted!.length).toBe(200);
      expect(path.startsWith(quoted!.slice(0, -1))).toBe(true);
      expect(body.detail.length).toBeLessThanOrEqual(detailMax);
    }
    expect(detailMax).toBe(4000);
  });

  it("a Prefer example name is quoted at most 200 characters long", async () => {
    const res = await fetch(`${g.url}/v1/analyses`, { headers: { ...pro, Prefer: `example=${"e".repeat(8000)}` } });
    expect(res.status).toBe(400);
    const { detail } = await res.json();
    expect(detail).toContain(`example=${"e".repeat(199)}…:`);
  });

  it("a 422 names a 100 KB unknown field in at most 256 characters, the last an ellipsis", async () => {
    const name = "k".repeat(100_000);
    const res = await fetch(`${g.url}/v1/speakers`, { method: "POST", headers: { ...pro, "Content-Type": "application/json" }, body: JSON.stringify({ name: "Ada", [name]: 1 }) });
    expect(res.status).toBe(422);
    const { detail } = await res.json();
    const loc = detail.find((i: { type: string }) => i.type === "additionalProperties").loc;
    expect(MAX_LOC_CHARACTERS).toBe(locMax);
    expect(locMax).toBe(256);
    expect(loc[1]).toBe("k".repeat(255) + "…");
  });
});

describe("WWW-Authenticate", () => {
  it("every 401 carries one of the two challenges the contract's header allows, now a required header", () => {
    const h = contract.doc.components.headers["WWW-Authenticate"];
    expect(h.required).toBe(true);
    const [plain, invalidToken] = h.schema.enum as string[];
    expect(new Set(Object.values(CHALLENGES))).toEqual(new Set([plain, invalidToken]));
    expect(invalidToken).toContain('error="invalid_token"');
    // A refused bearer token, and only that, says invalid_token (RFC 6750 §3.1).
    expect(Object.entries(CHALLENGES).filter(([, v]) => v === invalidToken).map(([k]) => k).sort()).toEqual(["duplicateAuthorization", "invalidToken"]);
  });

  it("a 401 (or 426) asked for with Prefer carries the headers its response requires, as the contract gives them", async () => {
    const pro = { "X-API-Key": "pk_test_demo_business" };
    const unauthorized = await fetch(`${g.url}/v1/analyses`, { headers: { ...pro, Prefer: "code=401" } });
    expect([unauthorized.status, unauthorized.headers.get("www-authenticate")]).toEqual([401, contract.doc.components.headers["WWW-Authenticate"].schema.enum[0]]);
    const upgrade = await fetch(`${g.url}/v1/stream`, { headers: { ...pro, Prefer: "code=426" } });
    expect([upgrade.status, upgrade.headers.get("upgrade")]).toEqual([426, "websocket"]);
    const ok = await fetch(`${g.url}/v1/analyses`, { headers: pro });
    expect(ok.headers.get("www-authenticate")).toBeNull();
  });
});

describe("HTTP at the edge", () => {
  const key = "pk_test_demo_business";
  const rateNames = Object.values(contract.policy.headers).filter((h) => h !== contract.policy.headers.retry_after);
  const wire = (...lines: string[]) => Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1");
  const rate = (r: RawResponse) => rateNames.map((n) => header(r, n));
  const expectError = (r: RawResponse | null, status: number) => {
    expect(r?.status).toBe(status);
    expect(header(r!, "content-type")).toBe("application/json");
    const body = JSON.parse(r!.body.toString());
    expect(schemaErrors("Error", body)).toEqual([]);
    for (const [i, v] of rate(r!).entries()) expect(v, rateNames[i]).toMatch(/^\d+$/);
    return body.detail as string;
  };

  it("refuses two Host headers with 400 (RFC 9112 §3.2), also on an upgrade", async () => {
    const r = await rawExchange(new URL(g.url), wire("GET /v1/analyses HTTP/1.1", "Host: a.example", "Host: b.example", `X-API-Key: ${key}`, "Connection: close"));
    expect(expectError(r, 400)).toMatch(/one Host header/);
    const u = await rawExchange(new URL(g.url), wire("GET /v1/stream HTTP/1.1", "Host: a.example", "Host: a.example", `X-API-Key: ${key}`, "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="));
    expect(expectError(u, 400)).toMatch(/one Host header/);
  });

  it("routes an absolute-form target by its path and query, whatever the Host header says (RFC 9112 §3.2.2)", async () => {
    const base = new URL(g.url);
    const ok = await rawRequest(base, { method: "GET", path: `${g.url}/v1/analyses?limit=2`, headers: [["Host", "elsewhere.example"], ["X-API-Key", key]] });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString()).data).toBeInstanceOf(Array);
    const bad = await rawRequest(base, { method: "GET", path: `HTTP://${base.host}/v1/analyses?limit=0`, headers: [["X-API-Key", key]] });
    expect(JSON.parse(bad.body.toString()).detail[0].loc).toEqual(["query", "limit"]); // the query was read
    const health = await rawRequest(base, { method: "GET", path: `http://${base.host}/health` });
    expect(health.status).toBe(200);
    const home = await rawRequest(base, { method: "GET", path: `http://${base.host}` });
    expect([home.status, header(home, "location")]).toEqual([302, "/swagger.html"]);
  });

  it("refuses a bad WebSocket handshake under /v1 with the contract's JSON error and the rate-limit headers", async () => {
    const upgrade = (...extra: string[]) => wire("GET /v1/stream HTTP/1.1", `Host: ${new URL(g.url).host}`, `X-API-Key: ${key}`, "Connection: Upgrade", "Upgrade: websocket", ...extra);
    const version = await rawExchange(new URL(g.url), upgrade("Sec-WebSocket-Version: 12", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="));
    expect(expectError(version, 400)).toMatch(/Sec-WebSocket-Version/);
    expect(header(version!, "sec-websocket-version")).toMatch(/^13\b/);
    const noKey = await rawExchange(new URL(g.url), upgrade("Sec-WebSocket-Version: 13"));
    expect(expectError(noKey, 400)).toMatch(/Sec-WebSocket-Key/);
    const protocol = await rawExchange(new URL(g.url), upgrade("Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: a,,b"));
    expect(expectError(protocol, 400)).toMatch(/Sec-WebSocket-Protocol/);
  });

  it("counts a request node:http cannot parse in the anonymous bucket of its address, and says so in its headers", async () => {
    const base = new URL(g.url);
    const first = await rawExchange(base, wire("GET /v1/analyses HTTP/1.1", "Host: x", "NoColonHere"));
    expect(expectError(first, 400)).toBe("Malformed HTTP request.");
    const second = await rawExchange(base, wire("GET /v1/analyses HTTP/1.1", "Host: x", "X-Big: " + "h".repeat(20_000)));
    expectError(second, 400);
    const [limit, remaining] = rate(first!).map(Number);
    expect(limit).toBe(Math.min(...Object.values(contract.policy.plans).map((p) => p.requests_per_minute)));
    expect(Number(header(second!, contract.policy.headers.remaining))).toBe(remaining! - 1);
    // Without a Host: parsed, then refused by the pipeline, counted the same way.
    const third = await rawExchange(base, wire("GET /v1/analyses HTTP/1.1", "Connection: close"));
    expect(expectError(third, 400)).toMatch(/needs a Host header/);
    expect(Number(header(third!, contract.policy.headers.remaining))).toBe(remaining! - 2);
  });

  it("a request not received in time answers 408 with the rate-limit headers of its bucket", async () => {
    const slow = await startGateway({ requestTimeoutMs: 300 });
    try {
      const base = new URL(slow.url);
      // Headers never finished: no request yet, so the anonymous bucket of the address.
      const partial = await rawExchange(base, Buffer.from("GET /v1/analyses HTTP/1.1\r\nHost: x\r\n"), 10_000);
      expectError(partial, 408);
      // A body that stops coming: the request was counted in its workspace's bucket, whose headers it gets.
      const body = await rawExchange(base, wire("POST /v1/speakers HTTP/1.1", "Host: x", `X-API-Key: ${key}`, "Content-Type: application/json", "Content-Length: 100"), 10_000);
      expectError(body, 408);
      expect(Number(header(body!, contract.policy.headers.limit))).toBe(contract.policy.plans.business!.requests_per_minute);
    } finally {
      await slow.close();
    }
  });
});

describe("proxy mode", () => {
  it("refuses the same malformed requests, counted nowhere and without rate-limit headers, when the upstream cannot take them (X13)", async () => {
    // Port 9 on loopback (discard): nothing listens. A doubled Host is refused before anything is forwarded; a request
    // node:http cannot parse would be relayed as bytes (X13), and with no upstream to take them the proxy answers.
    const proxy = await startGateway({ upstream: "http://127.0.0.1:9" });
    try {
      const base = new URL(proxy.url);
      for (const bytes of [
        Buffer.from("GET /v1/analyses HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        Buffer.from("GET /v1/analyses HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n"),
      ]) {
        const r = await rawExchange(base, bytes);
        expect(r?.status).toBe(400);
        expect(header(r!, contract.policy.headers.limit)).toBeUndefined();
      }
    } finally {
      await proxy.close();
    }
  });
});
