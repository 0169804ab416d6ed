// Issue 22, items 1 and 2: what one client can make the mock do on a shared host. Each case here failed before
// its fix (decisions SH*): generation without bounds, quadratic forms, unknown fields by the hundred thousand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, type TestGateway } from "./helpers.js";

const COMPLETED = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";

/** The longest array anywhere in `v`. */
function longestArray(v: unknown): number {
  if (Array.isArray(v)) return Math.max(v.length, ...v.map(longestArray));
  if (v && typeof v === "object") return Math.max(0, ...Object.values(v).map(longestArray));
  return 0;
}

describe("dynamic generation (Prefer: dynamic=true) is bounded", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ limits: { dynamicItems: 2, dynamicLength: 30 } });
    await g.gateway.ready;
  });
  afterAll(() => g.close());

  it("generates arrays of at most --dynamic-max-items items", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await call(g.url, "GET", "/v1/boards", { headers: { Prefer: "dynamic=true" } });
      expect(r.status).toBe(200);
      expect(longestArray(r.body)).toBeLessThanOrEqual(2);
    }
  });

  it("answers the transcript (100,000 segments of 50,000 words allowed) small, and ?__dynamic=true alike", async () => {
    for (const ask of [{ headers: { Prefer: "dynamic=true" } }, {}]) {
      const path = `/v1/analyses/${COMPLETED}/transcript${"headers" in ask ? "" : "?__dynamic=true"}`;
      const r = await call(g.url, "GET", path, ask);
      expect(r.status).toBe(200);
      expect(longestArray(r.body)).toBeLessThanOrEqual(2);
      expect(JSON.stringify(r.body).length).toBeLessThan(64 * 1024);
    }
  });
});

describe("request bodies are read in linear time, with caps", () => {
  let g: TestGateway;
  beforeAll(async () => (g = await startGateway({ limits: { formFields: 50, jsonMembers: 300 } })));
  afterAll(() => g.close());

  const form = (fields: number) => {
    const p = new URLSearchParams({ grant_type: "client_credentials", client_id: "cli_x" });
    for (let i = 0; i < fields; i++) p.append(`f${i}`, "x");
    return p.toString();
  };
  const postForm = (body: string) =>
    fetch(`${g.url}/v1/oauth/token`, { method: "POST", headers: { "X-API-Key": "pk_test_demo_pro", "Content-Type": "application/x-www-form-urlencoded" }, body });

  it("answers a form of more than --max-form-fields fields 400, naming the cap", async () => {
    const r = await postForm(form(60));
    expect(r.status).toBe(400);
    expect((await r.json()).detail).toMatch(/more than 50 fields/);
  });

  it("reads a form within the cap as before", async () => {
    const r = await postForm(form(10));
    expect(r.status).not.toBe(400);
  });

  it("answers a JSON body of more than --max-json-members members 400 before validation", async () => {
    const body: Record<string, unknown> = { name: "b", widgets: [] };
    for (let i = 0; i < 400; i++) body[`unknown_${i}`] = i;
    const r = await call(g.url, "POST", "/v1/boards", { body });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/more than 300 object members/);
  });

  it("counts members at every level", async () => {
    const nested = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, i]));
    const r = await call(g.url, "POST", "/v1/boards", { body: { name: "b", widgets: [{ x: nested }] } });
    expect(r.status).toBe(400);
  });
});
