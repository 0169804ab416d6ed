// The gateway answers from the contract's examples without Prism (src/mock/core/contract/examples.ts), and those answers must be
// Prism's own: for every operation, every documented status, every named example and a range of Accept headers,
// whatever examples.ts answers is compared byte for byte with what Prism (as the gateway drives it) answers. And
// examples.ts must settle every request a frontend sends without Prefer, or with a documented code or example,
// so that Prism is never loaded for them. A tiny contract of its own covers the rules the real one does not use
// (several media types per response, `example` beside `examples`, status ranges, `externalValue`, …).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContract, type Contract, type Route } from "../../../../src/mock/core/contract/contract-build.js";
import { ContractExamples } from "../../../../src/mock/core/contract/examples.js";
import { PrismBackend, type MockAnswer, type Preferences } from "../../../../src/mock/homes/node/prism.js";
import { apiKey, contract, getJson, startGateway } from "../../../helpers/mock.js";

/** Responses whose examples exercise each rule of examples.ts. */
const TINY_PATHS = {
  "/several-types": { get: { responses: { "200": content({ "text/csv": ["a,b", "c,d"], "application/json": [{ n: 1 }, { n: 2 }] }) } } },
  "/no-json": { get: { responses: { "200": content({ "application/xml": ["<a/>"], "text/plain": ["plain"] }) } } },
  "/example-and-examples": {
    get: { responses: { "200": { description: "ok", content: { "application/json": { example: { from: "example" }, examples: { named: { value: { from: "examples" } } } } } } } },
  },
  "/schema-examples": {
    get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", examples: [{ from: "schema" }] }, examples: { named: { value: { from: "examples" } } } } } } } },
  },
  "/lowest-as-strings": { post: { responses: { "201": content({ "application/json": [{ s: 201 }] }), "200": content({ "application/json": [{ s: 200 }] }), "404": content({ "application/json": [{ s: 404 }] }) } } },
  "/range": { get: { responses: { "2XX": content({ "application/json": [{ range: true }] }), "400": content({ "application/json": [{ s: 400 }] }) } } },
  "/no-content": { delete: { responses: { "204": { description: "gone" }, "202": content({ "application/json": [null] }) } } },
  "/external": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, examples: { far: { externalValue: "https://example.invalid/x.json" } } } } } } } },
  "/any-type": { get: { responses: { "200": content({ "*/*": ["anything"] }) } } },
  "/text": { get: { responses: { "200": content({ "text/plain; charset=utf-8": ["a string, as it is"] }) } } },
};

function content(byType: Record<string, unknown[]>) {
  const media = Object.entries(byType).map(([type, values]) => [type, { examples: Object.fromEntries(values.map((value, i) => [`ex${i}`, { value }])) }]);
  return { description: "ok", content: Object.fromEntries(media) };
}

function tinyContract(dir: string): Contract {
  const doc = { openapi: "3.1.0", info: { title: "tiny", version: "1.0.0" }, "x-rate-limit-policy": contract.doc["x-rate-limit-policy"], paths: TINY_PATHS };
  const jsonPath = path.join(dir, "openapi.json");
  fs.writeFileSync(jsonPath, JSON.stringify(doc));
  return buildContract(doc, { jsonPath, yamlPath: path.join(dir, "openapi.yaml"), yamlBytes: Buffer.alloc(0) });
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "avt-examples-"));
const tiny = tinyContract(scratch);
const prisms = new Map<Contract, PrismBackend>();
beforeAll(async () => {
  for (const c of [contract, tiny]) prisms.set(c, await PrismBackend.create(c.jsonPath));
}, 120_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Accept headers as browsers, HTTP libraries and odd clients send them. */
const ACCEPTS = [
  undefined,
  "*/*",
  "application/json",
  "application/json, text/plain, */*",
  "application/json;q=0.5, */*;q=0.9",
  "text/event-stream",
  "text/html",
  "image/*",
  "application/xml, */*;q=0",
];

const readers = new Map<Contract, ContractExamples>();
function examplesOf(c: Contract): ContractExamples {
  if (!readers.has(c)) readers.set(c, new ContractExamples(c));
  return readers.get(c)!;
}

/** Every combination of Prefer and Accept compared with Prism; how many examples.ts answered. */
async function compareAll(c: Contract, accepts: Array<string | undefined>): Promise<number> {
  let same = 0;
  for (const route of c.router.routes) {
    for (const accept of accepts) if ((await compare(c, route, {}, accept)) === "same") same++;
    for (const code of codesOf(route)) {
      for (const example of [undefined, ...exampleNames(route, code)]) {
        const prefer: Preferences = { code: Number(code), ...(example === undefined ? {} : { example }) };
        for (const accept of [undefined, "*/*", ...mediaTypes(route, code)]) if ((await compare(c, route, prefer, accept)) === "same") same++;
      }
    }
  }
  return same;
}

function codesOf(route: Route): string[] {
  return Object.keys(route.op.responses ?? {}).filter((c) => /^\d{3}$/.test(c));
}

function exampleNames(route: Route, code: string): string[] {
  const content: Record<string, { examples?: Record<string, unknown> }> = route.op.responses?.[code]?.content ?? contract.deref(route.op.responses?.[code])?.content ?? {};
  return [...new Set(Object.values(content).flatMap((m) => Object.keys(m.examples ?? {})))];
}

function mediaTypes(route: Route, code: string): string[] {
  return Object.keys(route.op.responses?.[code]?.content ?? contract.deref(route.op.responses?.[code])?.content ?? {});
}

/** A path the operation's template matches (Prism routes the request against it). */
function pathOf(route: Route): string {
  return route.template.replace(/\{[^}]+\}/g, "x1");
}

function shown(a: MockAnswer | undefined) {
  return a && { status: a.status, contentType: a.contentType, body: a.body?.toString("utf8") ?? null };
}

async function compare(c: Contract, route: Route, prefer: Preferences, accept: string | undefined): Promise<"same" | "prism only"> {
  const ours = examplesOf(c).answer(route, prefer, accept);
  if (!ours) return "prism only";
  const theirs = await prisms.get(c)!.answer(route, { path: pathOf(route), query: new URLSearchParams(), accept }, prefer);
  expect({ op: route.operationId, prefer, accept, ...shown(ours) }).toEqual({ op: route.operationId, prefer, accept, ...shown(theirs) });
  return "same";
}

describe("answers from the contract's examples", () => {
  it("are Prism's answers, for every operation, status, example and Accept", async () => {
    expect(await compareAll(contract, ACCEPTS)).toBeGreaterThan(contract.router.routes.length * 5);
  }, 300_000);

  it("are Prism's answers for the rules the contract does not use yet (a tiny contract of their own)", async () => {
    const accepts = [...ACCEPTS, "text/csv", "application/xml;q=0.1, text/plain", "text/*", "application/*"];
    expect(await compareAll(tiny, accepts)).toBeGreaterThan(tiny.router.routes.length * 3);
  }, 120_000);

  it("settle every plain request and every documented Prefer without Prism", () => {
    const unsettled: string[] = [];
    const examples = examplesOf(contract);
    for (const route of contract.router.routes) {
      // A WebSocket operation's own success is the gateway's 426 or upgrade, never an example.
      if (route.successCode !== 101) {
        for (const accept of [undefined, "*/*", ...mediaTypes(route, String(route.successCode))]) {
          if (!examples.answer(route, {}, accept)) unsettled.push(`${route.operationId} Accept ${accept}`);
        }
      }
      for (const code of codesOf(route)) {
        for (const example of [undefined, ...exampleNames(route, code)]) {
          if (!examples.answer(route, { code: Number(code), example }, undefined)) unsettled.push(`${route.operationId} code=${code} example=${example}`);
        }
      }
    }
    expect(unsettled).toEqual([]);
  });

  it("leave dynamic examples to Prism", () => {
    for (const route of contract.router.routes) expect(examplesOf(contract).answer(route, { dynamic: true }, undefined)).toBeUndefined();
  });
});

describe("the gateway loads Prism only when a request needs it", () => {
  it("answers plain requests and documented Prefers without Prism; dynamic=true needs it", async () => {
    // A contract whose JSON file Prism cannot load: every answer that needed Prism would be a 500.
    const g = await startGateway({ contract: { ...contract, jsonPath: path.join(scratch, "missing.json") } });
    try {
      const ask = (p: string, prefer?: string) => getJson(g.url + p, { headers: { ...apiKey("pk_test_demo_pro"), ...(prefer ? { Prefer: prefer } : {}) } });
      expect((await ask("/v1/analyses")).status).toBe(200);
      expect((await ask("/v1/analyses", "code=429, example=daily_limit_exceeded")).status).toBe(429);
      expect(g.logs.filter((l) => l.includes("loading Prism"))).toEqual([]);
      expect((await ask("/v1/analyses", "dynamic=true")).status).toBe(500);
      expect(g.logs.filter((l) => l.includes("loading Prism"))).toEqual([expect.stringMatching(/ loading Prism for GET \/v1\/analyses \(once; it takes a second or two\)$/)]);
      await expect(g.gateway.ready).rejects.toThrow();
    } finally {
      await g.close();
    }
  });

  it("answers dynamic=true through Prism, and `ready` settles once Prism is loaded", async () => {
    const g = await startGateway();
    try {
      const r = await getJson(`${g.url}/v1/analyses`, { headers: { ...apiKey("pk_test_demo_pro"), Prefer: "dynamic=true" } });
      expect([r.status, r.headers.get("content-type")]).toEqual([200, "application/json"]);
      expect(await g.gateway.ready).toEqual({ operations: contract.router.routes.length });
    } finally {
      await g.close();
    }
  }, 60_000);
});


describe("Prefer: example= on a GET by id (issue 31)", () => {
  let g: Awaited<ReturnType<typeof startGateway>>;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.close());

  it("answers the named example under the id asked for", async () => {
    const id = "anl_01AskedFor0000000000000";
    const r = await getJson(`${g.url}/v1/analyses/${id}`, { headers: { ...apiKey("pk_test_demo_pro"), Prefer: "example=failed" } });
    expect(r.status).toBe(200);
    expect([r.body.id, r.body.status]).toEqual([id, "failed"]);
  });
});
