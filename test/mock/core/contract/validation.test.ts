// The request validator on its own (no HTTP): the cost of validating long arrays counted in element reads (never
// timed), the cap on reported violations, and 422 messages a form can show.
import { describe, expect, it } from "vitest";
import { buildContract, type Contract, type Json } from "../../../../src/mock/core/contract/contract-build.js";
import { createContractAjv, MAX_REPORTED_ISSUES, RequestValidator } from "../../../../src/mock/core/contract/validation.js";
import { contract } from "../../../helpers/mock.js";

/** The contract with changes made to a copy of its document (e.g. a maxItems the real contract may not have yet). */
function patched(change: (doc: Json) => void): Contract {
  const doc = structuredClone(contract.doc);
  change(doc);
  return buildContract(doc, { jsonPath: contract.jsonPath, yamlPath: contract.yamlPath, yamlBytes: contract.yamlBytes });
}

/** An array that counts how often its elements are read (ajv reads `length` and indices like any array). */
function counted<T>(items: T[]): { array: T[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(items, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && /^\d+$/.test(prop)) reads++;
      return Reflect.get(target, prop, receiver);
    },
  });
  return { array, reads: () => reads };
}

const route = (c: Contract, method: string, path: string) => {
  const m = c.router.match(method, path);
  if (m.kind !== "ok") throw new Error(`no route ${method} ${path}`);
  return m.route;
};

async function bodyIssues(v: RequestValidator, c: Contract, path: string, body: unknown) {
  return (await v.checkBody(route(c, "POST", path), "application/json", Buffer.from(JSON.stringify(body)))).issues;
}

describe("validating long arrays", () => {
  const MAX = 20;
  const withMax = patched((doc) => (doc.components.schemas.AnalysisCreate.properties.features.maxItems = MAX));
  const v = new RequestValidator(withMax);
  const jsonValidator = v.compiled(route(withMax, "POST", "/v1/analyses")).body!.media.get("application/json")!.validate!;

  it("does not look at the items of an array over its maxItems: uniqueItems and items are not run", () => {
    // Distinct values: ajv's own uniqueItems compares every pair of them (the issue's 200,000 took 76 s).
    const { array, reads } = counted(Array.from({ length: 3000 }, (_, i) => `feature_${i}`));
    expect(jsonValidator({ media_type: "audio", media_url: "https://media.example.com/a.mp3", features: array })).toBe(false);
    expect(reads()).toBe(0);
  });

  it("answers a 422 naming only maxItems for such an array", async () => {
    const features = Array.from({ length: 5000 }, () => "telepathy"); // invalid and repeated, yet only too many
    const issues = await bodyIssues(v, withMax, "/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/a.mp3", features });
    expect(issues).toEqual([{ loc: ["body", "features"], msg: `must have at most ${MAX} items`, type: "maxItems" }]);
  });

  it("still checks the items and their uniqueness of an array within its maxItems", async () => {
    const issues = await bodyIssues(v, withMax, "/v1/analyses", { media_type: "audio", media_url: "https://media.example.com/a.mp3", features: ["transcription", "telepathy", "transcription"] });
    expect(issues.map((i) => [i.loc.join("."), i.type])).toEqual([
      ["body.features.1", "enum"],
      ["body.features", "uniqueItems"],
    ]);
  });

  it("checks uniqueness in linear time where the contract gives no maxItems (element reads counted)", () => {
    const ajv = createContractAjv(contract, false);
    const validate = ajv.compile({ type: "array", uniqueItems: true, items: { type: "object" } });
    const n = 3000;
    const { array, reads } = counted(Array.from({ length: n }, (_, i) => ({ id: i, tags: ["a", "b"] })));
    expect(validate(array)).toBe(true);
    expect(reads()).toBeLessThanOrEqual(4 * n); // ajv's pairwise comparison reads n² of them
  });

  it("finds duplicates however their keys are ordered, and names both indices", () => {
    const ajv = createContractAjv(contract, false);
    const validate = ajv.compile({ type: "array", uniqueItems: true });
    expect(validate([{ a: 1, b: [1, { c: null }] }, "x", 1, { b: [1, { c: null }], a: 1 }])).toBe(false);
    expect(validate.errors).toMatchObject([{ keyword: "uniqueItems", params: { i: 3, j: 0 } }]);
    for (const distinct of [[1, "1"], [0, false], [null, "null"], [[1, 2], [2, 1]], [{ a: 1 }, { a: "1" }], ["a", "b"]]) expect(validate(distinct), JSON.stringify(distinct)).toBe(true);
    expect(validate([1, 1.0])).toBe(false);
  });

  it("survives items nested deeper than any schema (they fail their own schemas instead)", () => {
    const ajv = createContractAjv(contract, false);
    const validate = ajv.compile({ type: "array", uniqueItems: true });
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    expect(validate([deep, 1])).toBe(true);
  });
});

describe("reported violations", () => {
  // A member cap above the 100,000 fields sent: the truncation of the list is what is tested here (the cap's own
  // 400 is in shared-host.test.ts).
  const v = new RequestValidator(contract, { formFields: 1000, jsonMembers: 200_000 });

  it(`lists the first ${MAX_REPORTED_ISSUES} and says how many more there are`, async () => {
    const body: Record<string, unknown> = { name: "Ana" };
    for (let i = 0; i < 100_000; i++) body[`extra_${i}`] = i;
    const issues = await bodyIssues(v, contract, "/v1/speakers", body);
    expect(issues).toHaveLength(MAX_REPORTED_ISSUES + 1);
    expect(issues[0]).toEqual({ loc: ["body", "extra_0"], msg: "is not a known field", type: "additionalProperties" });
    expect(issues.at(-1)).toEqual({ loc: ["body"], msg: `99,900 more violations are not listed (only the first ${MAX_REPORTED_ISSUES} are).`, type: "truncated" });
    expect(JSON.stringify({ detail: issues }).length).toBeLessThan(16 * 1024);
  });

  it("lists every violation when there are no more than the cap", async () => {
    const body: Record<string, unknown> = { name: "Ana" };
    for (let i = 0; i < MAX_REPORTED_ISSUES; i++) body[`extra_${i}`] = i;
    const issues = await bodyIssues(v, contract, "/v1/speakers", body);
    expect(issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(issues.some((i) => i.type === "truncated")).toBe(false);
  });
});

describe("422 messages a form can show", () => {
  const v = new RequestValidator(contract);
  const url = "https://media.example.com/a.mp3";
  const messages = async (path: string, body: unknown) => Object.fromEntries((await bodyIssues(v, contract, path, body)).map((i) => [i.loc.join("."), [i.msg, i.type]]));

  it("names the field a dependent schema forbids, and what a dependency requires", async () => {
    expect(await messages("/v1/analyses", { media_url: url, text: "hello", media_type: "audio", title: "t".repeat(201) })).toEqual({
      "body.text": ["cannot be combined with `media_url`", "dependentSchemas"],
      "body.media_url": ["cannot be combined with `text`", "dependentSchemas"],
      "body.media_type": ['must be "text" when `text` is given', "const"],
      "body.title": ["must be at most 200 characters", "maxLength"],
    });
    expect(await messages("/v1/analyses", { media_type: "audio" })).toEqual({ body: ["must have one of `media_url` or `text`", "oneOf"] });
  });

  it("says what is required, unknown, of the wrong type, out of range or not one of the values", async () => {
    expect(await messages("/v1/keys", { rate_limit_rpm: 0, colour: "red" })).toEqual({
      "body.name": ["is required", "required"],
      "body.environment": ["is required", "required"],
      "body.colour": ["is not a known field", "additionalProperties"],
      "body.rate_limit_rpm": ["must be at least 1", "minimum"],
    });
    expect(await messages("/v1/analyses", { media_type: "sound", media_url: 42, title: "", features: [] })).toEqual({
      "body.media_type": [expect.stringMatching(/^must be one of "audio", "video", /), "enum"],
      "body.media_url": ["must be a string", "type"],
      "body.title": ["must not be empty", "minLength"],
      "body.features": ["must have at least 1 item", "minItems"],
    });
  });

  it("says why a field name is not valid", async () => {
    expect(await messages("/v1/analyses", { media_url: url, media_type: "audio", metadata: { ["k".repeat(65)]: "v" } })).toEqual({
      [`body.metadata.${"k".repeat(65)}`]: ["is not a valid field name: it must be at most 64 characters", "propertyNames"],
    });
  });

  it("never answers with ajv's wording", async () => {
    const bodies: Array<[string, unknown]> = [
      ["/v1/analyses", { media_url: url, text: "x", media_type: "audio", features: ["transcription", "transcription"], metadata: { ["k".repeat(65)]: 1 } }],
      ["/v1/keys", { name: 5, rate_limit_rpm: "x", extra: true }],
      ["/v1/webhooks", { url: "ftp://x", event_types: ["nope"], enabled: "yes" }],
    ];
    for (const [path, body] of bodies) {
      for (const issue of await bodyIssues(v, contract, path, body)) {
        expect(issue.msg, JSON.stringify(issue)).not.toMatch(/must NOT|boolean schema|must have required property|must be equal to|must match "then"|additional properties|must pass|property name/);
      }
    }
  });
});

describe("parameters: what a request leaves out", () => {
  const v = new RequestValidator(contract);
  const none = new URLSearchParams();

  it("still answers a required query parameter that is missing, though nothing else is sent (the shortcut for requests without parameters)", () => {
    const upload = route(contract, "POST", "/v1/analysis/stream-upload");
    expect(v.checkParams(upload, {}, none, {})).toEqual([{ loc: ["query", "media_type"], msg: expect.any(String), type: "required" }]);
    expect(v.checkParams(upload, {}, new URLSearchParams("__scenario=fail"), {})).toMatchObject([{ loc: ["query", "media_type"], type: "required" }]);
    expect(v.checkParams(upload, {}, new URLSearchParams("media_type=audio"), {})).toEqual([]);
  });

  it("checks optional parameters once they are sent, and answers none for a request that sends none", () => {
    const list = route(contract, "GET", "/v1/analyses");
    expect(v.checkParams(list, {}, none, {})).toEqual([]);
    expect(v.checkParams(list, {}, new URLSearchParams("limit=0"), {})).toMatchObject([{ loc: ["query", "limit"], type: "minimum" }]);
  });
});
