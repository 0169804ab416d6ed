// Shared helpers for scripts and tests: load (bundle) the contract and compile its schemas with ajv.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GENERATED, SPEC_ROOT } from "./paths.js";
import { bundleRoot } from "./redocly.js";

// ajv-formats is CommonJS; under ESM its function sits on `default`.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export { ROOT, SPEC_ROOT, GENERATED } from "./paths.js";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Bundles a contract root with the Redocly CLI, optionally dereferenced, and parses it. */
export async function bundleContract(root = SPEC_ROOT, dereference = false): Promise<Json> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bundle-"));
  try {
    const out = path.join(dir, "bundle.json");
    await bundleRoot(root, out, dereference);
    return JSON.parse(await fs.readFile(out, "utf8"));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The committed bundle, generated/openapi.json, which tests and the mock read. */
export async function loadGenerated(): Promise<Json> {
  return JSON.parse(await fs.readFile(path.join(GENERATED, "openapi.json"), "utf8"));
}

/** An ajv instance for OpenAPI 3.1 schemas: JSON Schema 2020-12 plus OpenAPI's own schema keywords. */
export function createAjv(): Ajv2020 {
  // strict mode stays on so a misspelt keyword in the contract is an error, not silently ignored. Union types are
  // JSON Schema's own (a 422 `detail` is an array or a string, decision ID1).
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI's schema keywords, and the `x-` extensions the contract uses inside schemas (docs/decisions/contract.md, B13, RM1).
  for (const kw of ["discriminator", "xml", "externalDocs", "example", "x-extensible-enum", "x-lifecycle", "x-references", "x-derived", "x-completion", "x-referenced-by", "x-status", "x-open", "x-sunset"]) ajv.addKeyword(kw);
  return ajv;
}

export interface ExampleSite {
  where: string; // JSON pointer-ish location in the bundled document
  schema: Json;
  value: Json;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

/** Every (schema, example) pair in a dereferenced document: media types, parameters and headers. */
export function collectExamples(doc: Json): ExampleSite[] {
  const out: ExampleSite[] = [];
  const fromHolder = (holder: Json, schema: Json, where: string) => {
    if (!holder || !schema) return;
    if (holder.example !== undefined) out.push({ where: `${where}/example`, schema, value: holder.example });
    for (const [name, ex] of Object.entries<Json>(holder.examples ?? {})) {
      if (ex && typeof ex === "object" && "value" in ex) out.push({ where: `${where}/examples/${name}`, schema, value: ex.value });
    }
  };
  const fromContent = (content: Json, where: string) => {
    for (const [mt, media] of Object.entries<Json>(content ?? {})) fromHolder(media, media?.schema, `${where}/content/${mt}`);
  };
  const fromOperation = (op: Json, where: string) => {
    for (const [i, p] of (op.parameters ?? []).entries()) fromHolder(p, p.schema, `${where}/parameters/${i}`);
    if (op.requestBody) fromContent(op.requestBody.content, `${where}/requestBody`);
    for (const [code, r] of Object.entries<Json>(op.responses ?? {})) {
      fromContent(r.content, `${where}/responses/${code}`);
      for (const [h, hd] of Object.entries<Json>(r.headers ?? {})) fromHolder(hd, hd.schema, `${where}/responses/${code}/headers/${h}`);
    }
  };
  for (const kind of ["paths", "webhooks"] as const) {
    for (const [p, item] of Object.entries<Json>(doc[kind] ?? {})) {
      for (const [i, prm] of (item.parameters ?? []).entries()) fromHolder(prm, prm.schema, `#/${kind}/${p}/parameters/${i}`);
      for (const m of METHODS) if (item[m]) fromOperation(item[m], `#/${kind}/${p}/${m}`);
    }
  }
  return out;
}

/** Validates every example, returning one message per failure. */
export function exampleProblems(doc: Json): string[] {
  const ajv = createAjv();
  const problems: string[] = [];
  for (const site of collectExamples(doc)) {
    let validate;
    try {
      validate = ajv.compile(site.schema);
    } catch (e) {
      problems.push(`${site.where}: schema does not compile: ${(e as Error).message}`);
      continue;
    }
    if (!validate(site.value)) {
      const errs = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
      problems.push(`${site.where}: ${errs}`);
    }
  }
  return problems;
}
