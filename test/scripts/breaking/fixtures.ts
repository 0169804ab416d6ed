// Fixtures for the versioning gate: copies of the real bundle (generated/openapi.json), each with planted changes,
// written to a scratch folder so the gate can be pointed at them with --base/--head.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Json } from "../../../scripts/lib/contract.js";
import { nextVersion } from "../../../scripts/lib/diff/diff.js";
import { GENERATED, ROOT } from "../../../scripts/lib/paths.js";

export type Mutation = (doc: Json) => void;

export const realBundle: Json = JSON.parse(await fs.readFile(path.join(GENERATED, "openapi.json"), "utf8"));

export const scratchDir = () => fs.mkdtemp(path.join(os.tmpdir(), "breaking-test-"));

/** Writes a copy of `from` (default: the real bundle) with `mutate` applied; returns its path. */
export async function writeBundle(dir: string, name: string, mutate: Mutation = () => {}, from: Json = realBundle): Promise<string> {
  const doc = structuredClone(from);
  mutate(doc);
  const file = path.join(dir, `${name}.json`);
  await fs.writeFile(file, JSON.stringify(doc, null, 2));
  return file;
}

/** A named schema of a fixture; a clear failure when the contract no longer has it. */
export function schema(doc: Json, name: string): Json {
  const s = doc.components?.schemas?.[name];
  if (!s) throw new Error(`fixture needs components.schemas.${name} in generated/openapi.json`);
  return s;
}

export function operation(doc: Json, p: string, method: string): Json {
  const op = doc.paths?.[p]?.[method];
  if (!op) throw new Error(`fixture needs ${method.toUpperCase()} ${p} in generated/openapi.json`);
  return op;
}

/** Removes a property from an object schema and from its `required`. */
export function dropProperty(s: Json, name: string): void {
  if (!s.properties?.[name]) throw new Error(`fixture needs property ${name}`);
  delete s.properties[name];
  s.required = (s.required ?? []).filter((r: string) => r !== name);
}

/** Bumps info.version as a release with that impact needs. */
export function bump(doc: Json, part: "minor" | "patch"): void {
  doc.info.version = nextVersion(doc.info.version, part);
}

/** Runs tasks at most `limit` at a time: each one starts a redocly diff process (~2 CPU-seconds). */
export async function pool<T>(tasks: Array<() => Promise<T>>, limit = Math.max(2, os.availableParallelism())): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const run = promisify(execFile);

/** Runs one of our scripts as `npm run` would (tsx), returning its exit code and output. */
export async function runScript(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "scripts/contract", script), ...args], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}
