// The gateway's own paths, request validation with the contract's 400/422 bodies, Prefer passthrough to Prism,
// CORS and the request log.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_GENERATED_DIR } from "../../../../src/mock/homes/node/contract-files.js";
import { SWAGGER_ASSETS, SWAGGER_INIT_FILE } from "../../../../src/mock/homes/node/swagger.js";
import { ANALYSIS_ID, apiKey, contract, getJson, policy, rateHeaders, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const pro = apiKey("pk_test_demo_business");
const example = (name: string) => contract.doc.components.examples[name].value;

describe("documentation paths", () => {
  it("serves /openapi.yaml as exactly the bytes of generated/openapi.yaml, without credentials", async () => {
    const res = await fetch(`${g.url}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(DEFAULT_GENERATED_DIR, "openapi.yaml")))).toBe(true);
  });

  it("serves /swagger.html with self-hosted assets, an init script in its own file and a CSP without inline scripts", async () => {
    const res = await fetch(`${g.url}/swagger.html`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    // Every script is external, and from this origin.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(body!.trim()).toBe("");
      expect(attrs).toMatch(/src="swagger-ui\//);
    }
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//); // no CDN
    for (const src of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)) {
      const asset = await fetch(new URL(src, `${g.url}/swagger.html`));
      expect(asset.status, src).toBe(200);
      await asset.body?.cancel();
    }
    const init = await (await fetch(`${g.url}/swagger-ui/${SWAGGER_INIT_FILE}`)).text();
    expect(init).toContain("validatorUrl: null");
    expect(init).toContain("window.location.origin"); // "Try it out" goes to the mock itself
    expect(html).toContain('data-spec-url="openapi.yaml"');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy"`);
  });

  it("serves only the listed swagger-ui-dist files", async () => {
    expect(Object.keys(SWAGGER_ASSETS)).toContain("swagger-ui-bundle.js");
    for (const p of ["/swagger-ui/package.json", "/swagger-ui/../package.json", "/swagger-ui/swagger-initializer.js"]) {
      expect((await fetch(g.url + p)).status, p).toBe(404);
    }
  });
});

describe("request validation", () => {
  it("answers 422 listing each actual violation with its location, not a canned example", async () => {
    const r = await getJson(`${g.url}/v1/keys`, {
      method: "POST",
      headers: { ...pro, "Content-Type": "application/json" },
      body: JSON.stringify({ rate_limit_rpm: 0, colour: "red" }),
    });
    expect(r.status).toBe(422);
    expect(schemaErrors("ValidationError", r.body)).toEqual([]);
    const byLoc = Object.fromEntries(r.body.detail.map((i: { loc: string[]; type: string }) => [i.loc.join("."), i.type]));
    expect(byLoc).toMatchObject({ "body.rate_limit_rpm": "minimum", "body.colour": "additionalProperties", "body.name": "required" });
    expect(r.body).not.toEqual(contract.doc.components.responses.UnprocessableEntity.content["application/json"].examples.validation_failed.value);
  });

  it("validates path, query and header parameters", async () => {
    const q = await getJson(`${g.url}/v1/analyses?limit=many&status=lost`, { headers: pro });
    expect(q.status).toBe(422);
    expect(q.body.detail.map((i: { loc: string[] }) => i.loc)).toEqual([
      ["query", "limit"],
      ["query", "status"],
    ]);
    const p = await getJson(`${g.url}/v1/analyses/not-an-id`, { headers: pro });
    expect(p.body.detail).toEqual([{ loc: ["path", "analysis_id"], msg: expect.stringContaining("pattern"), type: "pattern" }]);
    const h = await getJson(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`, { headers: { ...pro, "Last-Event-ID": "nope" } });
    expect(h.status).toBe(422);
    expect(h.body.detail[0].loc).toEqual(["header", "Last-Event-ID"]);
  });

  it("narrows a discriminated oneOf to the variant the body names", async () => {
    const r = await getJson(`${g.url}/v1/oauth/token`, {
      method: "POST",
      headers: { ...pro, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&client_id=abc",
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ["body", "refresh_token"], msg: "is required", type: "required" }]);
  });

  it("reports form fields named like Object.prototype members (__proto__, constructor) as unexpected, never drops them", async () => {
    const base = new URLSearchParams(example("OAuthTokenCreateClientCredentials")).toString();
    const post = (body: string) =>
      getJson(`${g.url}/v1/oauth/token`, { method: "POST", headers: { ...pro, "Content-Type": "application/x-www-form-urlencoded" }, body });
    expect((await post(base)).status).toBe(200);
    for (const name of ["__proto__", "constructor", "toString"]) {
      const r = await post(`${base}&${name}=x&${name}=y`);
      expect(r.status, name).toBe(422);
      expect(r.body.detail.map((i: { loc: unknown[]; type: string }) => [i.loc, i.type])).toEqual([[["body", name], "additionalProperties"]]);
    }
  });

  it("validates multipart form fields", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])], { type: "audio/mpeg" }), "call.mp3");
    form.append("features", "transcription");
    form.append("features", "telepathy");
    const bad = await getJson(`${g.url}/v1/analyses/upload`, { method: "POST", headers: pro, body: form });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ["body", "features", 1], type: "enum" })]);
    form.delete("features");
    const ok = await getJson(`${g.url}/v1/analyses/upload`, { method: "POST", headers: pro, body: form });
    expect(ok.status).toBe(202);
  });

  it("answers 400 {detail} for malformed JSON, with the position, and for a media type the operation does not take", async () => {
    const r = await getJson(`${g.url}/v1/speakers`, { method: "POST", headers: { ...pro, "Content-Type": "application/json" }, body: '{"name": "Ana",}' });
    expect(r.status).toBe(400);
    expect(schemaErrors("Error", r.body)).toEqual([]);
    expect(r.body.detail).toMatch(/^Request body is not valid JSON: .* at line 1, column 16\.$/);
    const t = await getJson(`${g.url}/v1/speakers`, { method: "POST", headers: { ...pro, "Content-Type": "text/plain" }, body: "hi" });
    expect(t.status).toBe(400);
    expect(t.body.detail).toMatch(/application\/json/);
  });

  it("passes a valid request on: the store answers with the workspace's records, seeded from the contract's examples", async () => {
    const r = await getJson(`${g.url}/v1/analyses`, { headers: pro });
    expect(r.status).toBe(200);
    for (const a of example("AnalysisList").data) {
      expect(r.body.data.find((x: { id: string }) => x.id === a.id)).toEqual({ ...a, workspace_id: "ws_DemoBusiness" });
    }
    expect([r.body.has_more, r.body.next_cursor]).toEqual([false, null]);
    const created = await getJson(`${g.url}/v1/speakers`, {
      method: "POST",
      headers: { ...pro, "Content-Type": "application/json" },
      body: JSON.stringify(example("SpeakerCreate")),
    });
    expect(created.status).toBe(201);
  });
});

describe("stateless (`stateless: true`, `--stateless`)", () => {
  it("passes a valid request on to Prism, which answers with the contract's example", async () => {
    const s = await startGateway({ stateless: true });
    try {
      const r = await getJson(`${s.url}/v1/analyses`, { headers: pro });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(example("AnalysisList"));
      // Nothing is kept: a created board is not there to read, and any analysis streams the examples' script.
      const made = await getJson(`${s.url}/v1/boards`, { method: "POST", headers: { ...pro, "Content-Type": "application/json" }, body: JSON.stringify({ name: "Gone" }) });
      expect((await getJson(`${s.url}/v1/boards/${made.body.id}`, { headers: pro })).body.name).not.toBe("Gone");
      const stream = await fetch(`${s.url}/v1/analysis/anl_01HZZZZZZZZZZZZZZZZZZZZZZZ/stream`, { headers: pro });
      expect([stream.status, (await stream.text()).trim().split("\n\n").at(-1)]).toEqual([200, expect.stringContaining("event: completed")]);
    } finally {
      await s.close();
    }
  });
});

describe("Prefer passthrough", () => {
  it("code= picks any documented response, example= any named example", async () => {
    const nf = await getJson(`${g.url}/v1/analyses/${ANALYSIS_ID}`, { headers: { ...pro, Prefer: "code=404" } });
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ detail: "Resource not found." });
    const failed = await getJson(`${g.url}/v1/analyses/${ANALYSIS_ID}`, { headers: { ...pro, Prefer: "example=failed" } });
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual({ ...example("AnalysisFailed"), id: ANALYSIS_ID }); // the id asked for (issue 31)
    const both = await getJson(`${g.url}/v1/analyses`, { headers: { ...pro, Prefer: "code=401, example=expired_token" } });
    expect([both.status, both.body.detail]).toEqual([401, "The bearer token has expired."]);
  });

  it("a 429 asked for with Prefer carries Retry-After equal to its retry_after", async () => {
    const r = await getJson(`${g.url}/v1/analyses`, { headers: { ...pro, Prefer: "code=429; example=daily_limit_exceeded" } });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe("daily_limit_exceeded");
    expect(r.headers.get("retry-after")).toBe(String(r.body.retry_after));
  });

  it("still requires credentials: Prefer never bypasses the edge", async () => {
    expect((await getJson(`${g.url}/v1/analyses`, { headers: { Prefer: "code=200" } })).status).toBe(401);
  });

  it("an undocumented code or example, or a code that is no status, answers 400 listing what the operation documents", async () => {
    const ask = async (url: string, prefer: string) => {
      const r = await getJson(`${g.url}${url}`, { headers: { ...pro, Prefer: prefer } });
      expect(r.status, prefer).toBe(400);
      expect(schemaErrors("Error", r.body)).toEqual([]);
      expect(rateHeaders(r.headers).limit).toBeGreaterThan(0); // counted like any request
      return r.body.detail as string;
    };
    expect(await ask("/v1/analyses", "code=418")).toBe("Prefer code=418: GET /v1/analyses documents 200, 400, 401, 403, 422, 429, 500.");
    expect(await ask("/v1/analyses", "code=teapot")).toBe("Prefer code=teapot is not a status code; GET /v1/analyses documents 200, 400, 401, 403, 422, 429, 500.");
    expect(await ask(`/v1/analyses/${ANALYSIS_ID}`, "example=nope")).toMatch(/^Prefer example=nope: the 200 response of GET \/v1\/analyses\/\{analysis_id\} has the examples .*failed/);
    expect(await ask("/v1/analyses", "code=429, example=nope")).toMatch(/^Prefer example=nope: the 429 response of GET \/v1\/analyses has the examples .*daily_limit_exceeded/);
  });
});

describe("routing", () => {
  it("answers 404 for an unknown path and 405 (with Allow) for an unknown method, after authentication", async () => {
    const nf = await getJson(`${g.url}/v1/unknown`, { headers: pro });
    expect(nf.status).toBe(404);
    expect(schemaErrors("Error", nf.body)).toEqual([]);
    const na = await getJson(`${g.url}/v1/analyses`, { method: "PUT", headers: pro });
    expect(na.status).toBe(405);
    expect(na.headers.get("allow")).toBe("GET, POST");
    expect((await getJson(`${g.url}/v1/unknown`)).status).toBe(401);
    expect((await getJson(`${g.url}/elsewhere`)).status).toBe(404);
  });

  it("takes /v1/analyses/upload as the upload operation, not as an analysis id", async () => {
    const r = await getJson(`${g.url}/v1/analyses/upload`, { headers: pro });
    expect(r.status).toBe(405);
  });
});

describe("CORS", () => {
  it("answers a preflight allowing X-API-Key and Authorization, without credentials", async () => {
    const res = await fetch(`${g.url}/v1/analyses`, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:8080", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key, authorization, prefer" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["x-api-key", "authorization", "prefer", "content-type"]));
  });

  it("exposes the X-RateLimit-* and Retry-After headers to the browser", async () => {
    const res = await fetch(`${g.url}/v1/analyses`, { headers: { ...pro, Origin: "http://localhost:8080" } });
    await res.body?.cancel();
    const exposed = res.headers.get("access-control-expose-headers")!.split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(Object.values(policy.headers)));
  });
});

describe("request log", () => {
  it("writes one line per request: method, path, status, latency, workspace; with secrets redacted", async () => {
    g.logs.length = 0;
    await fetch(`${g.url}/v1/analyses?limit=2`, { headers: apiKey("pk_test_demo_starter") }).then((r) => r.arrayBuffer());
    await fetch(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream?token=pk_test_demo_starter&x=1`).then((r) => r.arrayBuffer());
    await fetch(`${g.url}/health`).then((r) => r.arrayBuffer());
    await new Promise((r) => setImmediate(r));
    expect(g.logs).toHaveLength(3);
    expect(g.logs[0]).toMatch(/^\S+Z GET \/v1\/analyses\?limit=2 200 \d+\.\dms ws_DemoStarter0$/);
    expect(g.logs[1]).toMatch(/ GET \/v1\/analysis\/anl_\w+\/stream\?token=\[redacted\]&x=1 200 \d+\.\dms ws_DemoStarter0$/);
    expect(g.logs[2]).toMatch(/ GET \/health 200 \d+\.\dms -$/);
    expect(g.logs.join("\n")).not.toContain("pk_test_demo_starter");
  });
});
