// Edge hardening at the gateway (issue 15; decisions G20 and after in docs/decisions.md): the viewer's assets are a
// fixed set, quoted paths are cut short, and HTTP itself is taken as RFC 9112 says (one Host, absolute-form
// targets), with every answer under the API's prefixes carrying the rate-limit headers, refused WebSocket
// handshakes and requests node:http could not parse included.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHALLENGES } from "../../src/mock/auth.js";
import { MAX_LOC_CHARACTERS } from "../../src/mock/issues.js";
import { SwaggerAssetFiles } from "../../src/mock/stages/own-paths.js";
import { SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE, SWAGGER_UI_DIR, swaggerPage } from "../../src/mock/swagger.js";
import { header, rawRequest } from "../robustness/lib/http.js";
import { contract, startGateway, type TestGateway } from "./helpers.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const randomName = (n: number) => randomBytes(n).toString("base64url").slice(0, n);

describe("the viewer's assets", () => {
  it("are exactly the files the page uses, read at start; a lookup of any other name keeps nothing", () => {
    const files = new SwaggerAssetFiles();
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
});
