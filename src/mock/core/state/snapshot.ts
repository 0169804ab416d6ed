// Reading a snapshot back (MockState.restore): small checks that say where in the snapshot a value is wrong, so
// a hand-edited or damaged state file is refused with the file, line and column of the bad value (state-file.ts).
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Contract } from "../contract/contract-build.js";
import type { JsonPath } from "./json-file.js";
import { componentSchemaId, createContractAjv } from "../contract/validation.js";

/** A malformed snapshot: `path` leads from the part's snapshot to the value that is wrong. */
export class SnapshotError extends Error {
  constructor(
    readonly path: JsonPath,
    readonly reason: string,
  ) {
    super(`${path.length ? path.join(".") + ": " : ""}${reason}`);
  }
}

export type Fields = Record<string, unknown>;

export function object(v: unknown, path: JsonPath): Fields {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new SnapshotError(path, "must be an object");
  return v as Fields;
}

export function array(v: unknown, path: JsonPath): unknown[] {
  if (!Array.isArray(v)) throw new SnapshotError(path, "must be an array");
  return v;
}

export function string(v: unknown, path: JsonPath, pattern?: RegExp): string {
  if (typeof v !== "string" || (pattern && !pattern.test(v))) throw new SnapshotError(path, pattern ? `must be a string matching ${pattern.source}` : "must be a string");
  return v;
}

export function stringOrNull(v: unknown, path: JsonPath, pattern?: RegExp): string | null {
  return v === null ? null : string(v, path, pattern);
}

export function integer(v: unknown, path: JsonPath, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new SnapshotError(path, `must be an integer of at least ${min}`);
  return v;
}

export function integerOrNull(v: unknown, path: JsonPath, min: number): number | null {
  return v === null ? null : integer(v, path, min);
}

export function boolean(v: unknown, path: JsonPath): boolean {
  if (typeof v !== "boolean") throw new SnapshotError(path, "must be true or false");
  return v;
}

/** An ISO date-time as the mock writes them. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const validators = new WeakMap<Contract, Ajv2020>();

/**
 * A check of a snapshot value against one of the contract's component schemas (a stored webhook is a
 * `WebhookWithSecret`): the contract's own patterns and formats, never copies of them. The ajv is made on first use,
 * when a state file is loaded.
 */
export function componentCheck(contract: Contract, name: string): (value: unknown, path: JsonPath) => void {
  return (value, path) => {
    let ajv = validators.get(contract);
    if (!ajv) validators.set(contract, (ajv = createContractAjv(contract, false)));
    const validate = ajv.getSchema(componentSchemaId(name))!;
    if (validate(value)) return;
    const e = validate.errors![0]!;
    const where = e.instancePath.split("/").slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, "/").replace(/~0/g, "~")));
    const field = e.keyword === "required" || e.keyword === "additionalProperties" ? ` (${String(e.params.missingProperty ?? e.params.additionalProperty)})` : "";
    throw new SnapshotError([...path, ...where], `${e.message}${field}, as the contract's ${name} says`);
  };
}
