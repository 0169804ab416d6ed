// The lint rule `policy/idempotency` (scripts/redocly/policy-plugin.mjs), seen to fire on a small contract that
// breaks x-idempotency once per operation: each problem named at its operation, with line and column.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { ROOT } from "../../scripts/lib/paths.js";
import { problemLines, redocly } from "../../scripts/lib/redocly.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const key = { $ref: "parameters/IdempotencyKey.yaml" };
const answers = { "201": { description: "Created" }, "409": { description: "Conflict" }, "422": { description: "Unprocessable" } };
const op = (operationId: string, parameters: Json[] = [key], responses: Json = answers): Json => ({ operationId, parameters, responses });

const policy = {
  header: "Idempotency-Key",
  parameter: "IdempotencyKey",
  methods: ["POST", "PATCH"],
  path_prefixes: ["/v1"],
  scope: "workspace",
  window_seconds: 86400,
  fingerprint: ["method", "path", "body"],
  replayed_header: "Idempotent-Replayed",
  stored: ["status", "headers", "body"],
  not_stored: ["400", "422", "5XX"],
  errors: { in_use: { status: 409, error: "idempotency_key_in_use" }, reused: { status: 422, error: "idempotency_key_reused" } },
  exempt: { exemptOne: "stores nothing.", exemptButKeyed: "stores nothing.", notAnOperation: "gone." },
};

let lines: string[];
let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "idempotency-lint-"));
  const root = {
    openapi: "3.1.0",
    info: { title: "Idempotency fixture", version: "1.0.0" },
    paths: {
      "/v1/good": { post: op("createGood"), get: op("listGood", []) },
      "/v1/good/{id}": { patch: op("updateGood") },
      "/v1/missing": { post: op("createMissing", []) },
      "/v1/no-conflict": { post: op("createNoConflict", [key], { "201": answers["201"], "422": answers["422"] }) },
      "/v1/exempt": { post: op("exemptOne", []) },
      "/v1/exempt-keyed": { post: op("exemptButKeyed") },
      "/other/outside": { post: op("createOutside", []) },
    },
    "x-idempotency": policy,
  };
  await fs.mkdir(path.join(dir, "parameters"));
  await fs.writeFile(path.join(dir, "openapi.yaml"), stringify(root));
  await fs.writeFile(path.join(dir, "parameters", "IdempotencyKey.yaml"), stringify({ name: "Idempotency-Key", in: "header", schema: { type: "string", minLength: 1, maxLength: 255 } }));
  const plugin = path.join(ROOT, "scripts/redocly/policy-plugin.mjs");
  await fs.writeFile(path.join(dir, "redocly.yaml"), stringify({ plugins: [plugin], extends: [], rules: { "policy/idempotency": "error" } }));
  const res = await redocly(["lint", path.join(dir, "openapi.yaml"), "--config", path.join(dir, "redocly.yaml"), "--format=stylish", "--max-problems=1000"]);
  lines = problemLines(res.output).filter((l) => l.endsWith("(policy/idempotency)"));
}, 60_000);
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const about = (word: string) => lines.filter((l) => l.includes(word) && /:\d+:\d+ error /.test(l));

describe("lint rule policy/idempotency", () => {
  it("passes keyed operations, exempt ones without a key, GETs and paths outside the prefixes", () => {
    for (const ok of ["createGood", "updateGood", "listGood", "exemptOne", "createOutside"]) expect(about(ok)).toEqual([]);
  });
  it("a POST under /v1 without the shared parameter", () => {
    expect(about("createMissing").join("\n")).toMatch(/createMissing creates or changes something: reference the shared Idempotency-Key parameter/);
  });
  it("a keyed operation without the 409 of idempotency_key_in_use", () => {
    expect(about("createNoConflict").join("\n")).toMatch(/document its 409 \(idempotency_key_in_use\)/);
  });
  it("an exempt operation that takes the key anyway", () => {
    expect(about("exemptButKeyed").join("\n")).toMatch(/exemptButKeyed is exempt in x-idempotency: it takes no Idempotency-Key/);
  });
  it("an exempt name that is no operation", () => {
    expect(about("notAnOperation").join("\n")).toMatch(/x-idempotency\.exempt names notAnOperation, which is no POST or PATCH operation under \/v1/);
  });
  it("reports nothing else", () => {
    expect(lines).toHaveLength(4);
  });
});
