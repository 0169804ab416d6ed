// API keys the mock accepts: the built-in demo keys, plus those of an optional JSON file (MOCK_KEYS_FILE).
import fs from "node:fs";
import { LineCounter, parseDocument, type Node } from "yaml";
import type { PlanName, RateLimitPolicy } from "../policy.js";
import { withoutExcerpt } from "./log.js";

export const KEY_PREFIXES = ["pk_live_", "pk_test_"] as const;

export interface KeyRecord {
  key: string;
  workspace_id: string;
  plan: PlanName;
  rate_limit_rpm?: number | null;
  /** The key's workspace is frozen: every request answers 403. */
  frozen?: boolean;
  label?: string;
}

const WORKSPACE_ID = /^ws_[0-9A-Za-z]{8,40}$/;

/**
 * The demo keys: one workspace per plan of the policy (`pk_test_demo_<plan>`), a Pro workspace whose key is
 * capped at 10 requests per minute, and a frozen workspace.
 */
export function demoKeys(policy: RateLimitPolicy): KeyRecord[] {
  const plans = Object.keys(policy.plans);
  const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const ws = (name: string) => `ws_Demo${title(name)}`.padEnd(15, "0");
  const limitedPlan = plans.includes("pro") ? "pro" : plans[plans.length - 1]!;
  return [
    ...plans.map((plan) => ({ key: `pk_test_demo_${plan}`, workspace_id: ws(plan), plan, label: `${title(plan)} plan` })),
    {
      key: "pk_test_demo_limited",
      workspace_id: ws("limited"),
      plan: limitedPlan,
      rate_limit_rpm: 10,
      label: `${title(limitedPlan)} plan, key capped at rate_limit_rpm 10`,
    },
    { key: "pk_test_demo_frozen", workspace_id: ws("frozen"), plan: plans[0]!, frozen: true, label: "Frozen workspace (403)" },
  ];
}

export class KeysFileError extends Error {}

/** Reads a keys file: `{"keys": [{"key", "workspace_id", "plan", "rate_limit_rpm"?, "frozen"?, "label"?}]}`. */
export function loadKeysFile(file: string, policy: RateLimitPolicy): KeyRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new KeysFileError(`${file}: cannot read the keys file (${code === "ENOENT" ? "no such file" : (e as Error).message})`);
  }
  return parseKeysFile(text, file, policy);
}

export function parseKeysFile(text: string, file: string, policy: RateLimitPolicy): KeyRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const msg = withoutExcerpt((e as Error).message);
    const pos = /at position (\d+)/.exec(msg);
    const { line, col } = lineCol(text, pos ? Number(pos[1]) : text.length);
    throw new KeysFileError(`${file}:${line}:${col}: invalid JSON: ${msg.replace(/ in JSON at position \d+.*$/, "")}`);
  }
  // Locations of values for error messages: JSON is YAML, and yaml's nodes know their source ranges.
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, keepSourceTokens: false });
  const fail = (where: Array<string | number>, msg: string): never => {
    const node = doc.getIn(where, true) as Node | undefined;
    const offset = node?.range?.[0] ?? 0;
    const p = lc.linePos(offset);
    throw new KeysFileError(`${file}:${p.line}:${p.col}: ${where.length ? where.join(".") + ": " : ""}${msg}`);
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

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

/** All keys the gateway accepts, by key value. A workspace frozen in any entry is frozen for all its keys. */
export class KeyStore {
  private byKey = new Map<string, KeyRecord>();
  private frozen = new Set<string>();
  private plans = new Map<string, PlanName>();
  private buckets = new Map<string, string>();

  constructor(records: KeyRecord[]) {
    for (const r of records) {
      if (this.byKey.has(r.key)) throw new KeysFileError(`key ${redactKey(r.key)} is defined twice (a keys file may not redefine a demo key)`);
      this.byKey.set(r.key, r);
      this.buckets.set(r.key, `key:${r.workspace_id}:${this.buckets.size}`);
      if (r.frozen) this.frozen.add(r.workspace_id);
      this.plans.set(r.workspace_id, r.plan);
    }
  }

  get(key: string): KeyRecord | undefined {
    return this.byKey.get(key);
  }

  /** The name of a known key's own rate-limit bucket: its workspace and its place in the store, never the key. */
  bucketOf(key: string): string | undefined {
    return this.buckets.get(key);
  }

  isFrozen(workspaceId: string): boolean {
    return this.frozen.has(workspaceId);
  }

  planOf(workspaceId: string): PlanName | undefined {
    return this.plans.get(workspaceId);
  }

  list(): KeyRecord[] {
    return [...this.byKey.values()];
  }
}

/** `pk_test_demo_pro` → `pk_test_…`: enough to tell which kind of key, never the secret part. */
export function redactKey(key: string): string {
  const prefix = KEY_PREFIXES.find((p) => key.startsWith(p));
  return prefix ? `${prefix}…` : "…";
}
