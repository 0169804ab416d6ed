// The optional keys file (MOCK_KEYS_FILE, --keys): more API keys for the mock, refused with file, line and column
// when malformed.
import type { RateLimitPolicy } from "../../../contract/policy.js";
import { parseJsonSource, type JsonSource } from "../state/json-file.js";
import { KEY_PREFIXES, type KeyRecord } from "./key-record.js";
import { readTextFile } from "../state/text-file.js";

export class KeysFileError extends Error {}

const WORKSPACE_ID = /^ws_[0-9A-Za-z]{8,40}$/;

/** Reads a keys file: `{"keys": [{"key", "workspace_id", "plan", "rate_limit_rpm"?, "frozen"?, "label"?}]}`. */
export function loadKeysFile(file: string, policy: RateLimitPolicy): KeyRecord[] {
  return parseKeysFile(readTextFile(file, "keys file", (m) => new KeysFileError(m)), file, policy);
}

export function parseKeysFile(text: string, file: string, policy: RateLimitPolicy): KeyRecord[] {
  return checkKeys(parseJsonSource(text, file, (m) => new KeysFileError(m)), policy, (m) => new KeysFileError(m));
}

/** Checks the keys of a parsed file (`src.data`: `{"keys": [...]}` or a bare array); errors name file, line and column. */
export function checkKeys(src: JsonSource, policy: RateLimitPolicy, makeError: (message: string) => Error): KeyRecord[] {
  const data = src.data;
  const fail = (where: Array<string | number>, msg: string): never => {
    throw makeError(`${src.at(where)}: ${where.length ? where.join(".") + ": " : ""}${msg}`);
  };

  const plans = Object.keys(policy.plans);
  const list = Array.isArray(data) ? data : (data as { keys?: unknown })?.keys;
  const base: Array<string | number> = Array.isArray(data) ? [] : ["keys"];
  if (!Array.isArray(list)) fail([], 'expected {"keys": [ ... ]} (or a bare array of keys)');
  const seen = new Set<string>();
  const plansOf = new Map<string, string>();
  return (list as unknown[]).map((raw, i) => {
    const at = (...rest: Array<string | number>) => [...base, i, ...rest];
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) fail(at(), "each key must be an object");
    const r = raw as Record<string, unknown>;
    const allowed = ["key", "workspace_id", "plan", "rate_limit_rpm", "frozen", "label"];
    for (const k of Object.keys(r)) if (!allowed.includes(k)) fail(at(k), `unknown field; allowed: ${allowed.join(", ")}`);
    if (typeof r.key !== "string" || !KEY_PREFIXES.some((p) => (r.key as string).startsWith(p)) || !/^pk_(live|test)_[0-9A-Za-z_]{4,}$/.test(r.key)) {
      fail(at("key"), `must be a string starting with ${KEY_PREFIXES.join(" or ")} followed by at least 4 letters, digits or _`);
    }
    if (seen.has(r.key as string)) fail(at("key"), "duplicate key");
    seen.add(r.key as string);
    if (typeof r.workspace_id !== "string" || !WORKSPACE_ID.test(r.workspace_id)) fail(at("workspace_id"), `must match ${WORKSPACE_ID.source}`);
    if (typeof r.plan !== "string" || !plans.includes(r.plan)) fail(at("plan"), `must be one of ${plans.join(", ")}`);
    const earlier = plansOf.get(r.workspace_id as string);
    if (earlier && earlier !== r.plan) fail(at("plan"), `workspace ${r.workspace_id} is on plan ${earlier} in an earlier entry`);
    plansOf.set(r.workspace_id as string, r.plan as string);
    if (r.rate_limit_rpm != null && (!Number.isInteger(r.rate_limit_rpm) || (r.rate_limit_rpm as number) < 1)) {
      fail(at("rate_limit_rpm"), "must be a positive integer or null");
    }
    if (r.frozen != null && typeof r.frozen !== "boolean") fail(at("frozen"), "must be true or false");
    if (r.label != null && typeof r.label !== "string") fail(at("label"), "must be a string");
    return r as unknown as KeyRecord;
  });
}
