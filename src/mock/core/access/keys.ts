// API keys the mock accepts: the seeded ones (the built-in demo keys, those of an optional keys file, and keys a
// test passes in) and the keys made with `POST /v1/keys` while it runs. One store for both, so every key shows up
// in its workspace's list and can be renamed, limited and revoked the same way (responders/keys.ts).
// The store is a MockState (state.ts): reset forgets created keys and undoes every change to seeded ones.
import { sha256Of, toHex } from "../util/digest.js";
import type { components } from "../../../../generated/schema.js";
import type { PlanName, RateLimitPolicy } from "../../../contract/policy.js";
import type { Contract } from "../contract/contract-build.js";
import { newId } from "../events/events.js";
import { isoSeconds, randomBase62, type RandomStreams } from "../util/ids.js";
import { KeysFileError } from "./keys-file.js";
import { KEY_PREFIXES, type KeyRecord } from "./key-record.js";
import { systemClock, type TimeSource } from "../clock/clock.js";
import { array, componentCheck, DATE_TIME, integerOrNull, object, SnapshotError, string, stringOrNull, type Fields } from "../state/snapshot.js";
import type { MockState } from "../state/state.js";

export { KeysFileError, loadKeysFile, parseKeysFile } from "./keys-file.js";

export { KEY_PREFIXES, type KeyRecord } from "./key-record.js";

export type ApiKey = components["schemas"]["ApiKey"];

/** A key as the store keeps it: its secret and what `ApiKey` shows of it. */
export interface StoredKey {
  readonly secret: string;
  readonly id: string;
  readonly workspace_id: string;
  readonly plan: PlanName;
  /** Started with (demo, file, test key) rather than created with `POST /v1/keys`. */
  readonly seeded: boolean;
  /** Place in the order of creation (lists are newest first; cursors name it). */
  readonly seq: number;
  name: string;
  rate_limit_rpm: number | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** The scopes the key is limited to (those of the scoped caller that made it, issue 47); null: not limited. */
  readonly scopes: readonly string[] | null;
}

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

/**
 * The id of a seeded key: derived from its value (a hash, never the value itself), so it is the same on every
 * start and a state file's changes to it find it again.
 */
export function seededKeyId(secret: string): string {
  return "key_" + toHex(sha256Of(secret)).slice(0, 24);
}

export class KeyStore implements MockState {
  readonly name = "keys";
  private bySecret = new Map<string, StoredKey>();
  private byId = new Map<string, StoredKey>();
  private frozen = new Set<string>();
  private plans = new Map<string, PlanName>();
  private seq = 0;
  /** The minute (epoch ms) `last_used_at` was last set to, per key. */
  private usedMinute = new WeakMap<StoredKey, number>();
  /** When the seeded keys count as created: the start of the mock's world (kept by the state file). */
  private startedAt: string;

  private readonly clock: TimeSource;
  /** The random part of new keys' ids and secrets (a seeded simulation's), else WebCrypto. */
  private readonly random: RandomStreams | undefined;
  private readonly onChange: () => void;
  /** The policy's plans: a restored key must be on one of them. */
  private readonly planNames: readonly string[];
  /** Its schemas check a restored snapshot. */
  private readonly contract: Contract | undefined;

  constructor(
    private readonly seeds: readonly KeyRecord[],
    opts: { clock?: TimeSource; onChange?: () => void; contract?: Contract; random?: RandomStreams } = {},
  ) {
    this.contract = opts.contract;
    this.random = opts.random;
    this.clock = opts.clock ?? systemClock;
    this.onChange = opts.onChange ?? (() => {});
    this.planNames = opts.contract ? Object.keys(opts.contract.policy.plans) : [...new Set(seeds.map((r) => r.plan))];
    const seen = new Set<string>();
    for (const r of seeds) {
      if (seen.has(r.key)) throw new KeysFileError(`key ${redactKey(r.key)} is defined twice (a keys file may not redefine a demo key)`);
      seen.add(r.key);
      if (r.frozen) this.frozen.add(r.workspace_id);
    }
    this.startedAt = isoSeconds(this.clock.now());
    this.seed();
  }

  private seed(): void {
    this.bySecret.clear();
    this.byId.clear();
    this.plans.clear();
    this.seq = 0;
    for (const r of this.seeds) {
      this.add({
        secret: r.key,
        id: seededKeyId(r.key),
        workspace_id: r.workspace_id,
        plan: r.plan,
        seeded: true,
        seq: 0,
        name: r.label ?? "Key from the keys file",
        rate_limit_rpm: r.rate_limit_rpm ?? null,
        created_at: this.startedAt,
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
        scopes: null,
      });
    }
  }

  private add(k: StoredKey): StoredKey {
    const stored = { ...k, seq: ++this.seq };
    this.bySecret.set(stored.secret, stored);
    this.byId.set(stored.id, stored);
    if (!this.plans.has(stored.workspace_id)) this.plans.set(stored.workspace_id, stored.plan);
    return stored;
  }

  /** The key whose secret is `secret`, revoked and expired ones included. */
  get(secret: string): StoredKey | undefined {
    return this.bySecret.get(secret);
  }

  /** The key `id` of workspace `workspaceId` (another workspace's key is not found). */
  find(id: string, workspaceId: string): StoredKey | undefined {
    const k = this.byId.get(id);
    return k && k.workspace_id === workspaceId ? k : undefined;
  }

  /** The name of a key's own rate-limit bucket: its id, never the key. */
  bucketOf(secret: string): string | undefined {
    const k = this.bySecret.get(secret);
    return k && `key:${k.id}`;
  }

  isFrozen(workspaceId: string): boolean {
    return this.frozen.has(workspaceId);
  }

  planOf(workspaceId: string): PlanName | undefined {
    return this.plans.get(workspaceId);
  }

  /** The keys the gateway was started with (demo, file and test keys), as given. */
  list(): KeyRecord[] {
    return [...this.seeds];
  }

  /** The workspace's keys, newest first, revoked ones included. */
  inWorkspace(workspaceId: string): StoredKey[] {
    const out: StoredKey[] = [];
    for (const k of this.byId.values()) if (k.workspace_id === workspaceId) out.push(k);
    return out.reverse();
  }

  /**
   * Creates a key in `workspaceId` (checked by the caller: the limit, the expiry, who may create it), limited to
   * `scopes` when given (the scoped caller's own: a key is never wider than its maker).
   */
  create(workspaceId: string, plan: PlanName, body: components["schemas"]["ApiKeyCreate"], scopes: readonly string[] | null = null): { key: StoredKey; secret: string } {
    const now = this.clock.now();
    const random = this.random?.of(workspaceId);
    const secret = `pk_${body.environment}_${randomBase62(32, random)}`;
    const key = this.add({
      secret,
      id: newId("key", now, random),
      workspace_id: workspaceId,
      plan,
      seeded: false,
      seq: 0,
      name: body.name,
      rate_limit_rpm: body.rate_limit_rpm ?? null,
      created_at: isoSeconds(now),
      last_used_at: null,
      expires_at: body.expires_at ? isoSeconds(Date.parse(body.expires_at)) : null,
      revoked_at: null,
      scopes: scopes ? [...scopes] : null,
    });
    this.onChange();
    return { key, secret };
  }

  update(k: StoredKey, patch: components["schemas"]["ApiKeyUpdate"]): void {
    if (patch.name !== undefined) k.name = patch.name;
    if (patch.rate_limit_rpm !== undefined) k.rate_limit_rpm = patch.rate_limit_rpm;
    this.onChange();
  }

  /** Revokes `k` at once; revoking again changes nothing (the first `revoked_at` stays). */
  revoke(k: StoredKey): void {
    if (k.revoked_at) return;
    k.revoked_at = isoSeconds(this.clock.now());
    this.onChange();
  }

  /** Records that `k` authenticated a request now (`last_used_at`, to the minute). Runs on every request. */
  touch(k: StoredKey): void {
    const now = this.clock.now();
    const minute = now - (now % 60_000);
    if (this.usedMinute.get(k) === minute) return; // a number compared: no date is formatted per request
    this.usedMinute.set(k, minute);
    k.last_used_at = isoSeconds(minute);
    this.onChange();
  }

  /** The key as the API shows it: no secret, only its prefix and last four letters or digits. */
  view(k: StoredKey): ApiKey {
    const prefix = KEY_PREFIXES.find((p) => k.secret.startsWith(p))!;
    return {
      id: k.id,
      workspace_id: k.workspace_id,
      name: k.name,
      environment: prefix === "pk_live_" ? "live" : "test",
      prefix,
      // The demo keys are readable names (`pk_test_demo_pro`), not secrets of the contract's form: their last
      // four letters or digits stand in (`opro`).
      last_four: k.secret.replace(/[^0-9A-Za-z]/g, "").slice(-4),
      rate_limit_rpm: k.rate_limit_rpm,
      created_at: k.created_at,
      last_used_at: k.last_used_at,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
      scope: k.scopes ? k.scopes.join(" ") : null,
    };
  }

  reset(): void {
    this.startedAt = isoSeconds(this.clock.now());
    this.seed();
  }

  /** Created keys whole (their secrets too: the state file must let them authenticate again); seeded keys' changes. */
  snapshot(): unknown {
    const created: Fields[] = [];
    const seeded: Record<string, Fields> = {};
    for (const k of this.byId.values()) {
      if (!k.seeded) created.push({ ...this.view(k), secret: k.secret, plan: k.plan });
      else seeded[k.id] = { name: k.name, rate_limit_rpm: k.rate_limit_rpm, last_used_at: k.last_used_at, revoked_at: k.revoked_at };
    }
    return { started_at: this.startedAt, seeded, created };
  }

  /**
   * Created keys must be `ApiKeyWithSecret`s of the contract plus their `plan`; changes to a seeded key that is no
   * longer seeded (the keys file changed since) are dropped.
   */
  restore(data: unknown): void {
    if (!this.contract) throw new Error("KeyStore.restore needs the contract (option `contract`)");
    const check = componentCheck(this.contract, "ApiKeyWithSecret");
    const d = object(data, []);
    const startedAt = string(d.started_at, ["started_at"], DATE_TIME);
    const changes = Object.entries(object(d.seeded, ["seeded"])).map(([id, raw]) => [id, readChanges(raw, ["seeded", id])] as const);
    const created = array(d.created, ["created"]).map((raw, i): StoredKey => {
      const { plan, ...key } = object(raw, ["created", i]);
      check(key, ["created", i]);
      if (typeof plan !== "string" || !this.planNames.includes(plan)) throw new SnapshotError(["created", i, "plan"], `must be one of ${this.planNames.join(", ")}`);
      const k = key as unknown as ApiKey & { secret: string };
      const { id, workspace_id, name, rate_limit_rpm, created_at, last_used_at, expires_at, revoked_at, secret } = k;
      return { secret, id, workspace_id, plan, seeded: false, seq: 0, name, rate_limit_rpm, created_at, last_used_at, expires_at, revoked_at, scopes: typeof k.scope === "string" ? k.scope.split(" ") : null };
    });
    this.startedAt = startedAt;
    this.seed();
    for (const [id, change] of changes) {
      const k = this.byId.get(id);
      if (k?.seeded) Object.assign(k, change);
    }
    for (const [i, k] of created.entries()) {
      if (this.bySecret.has(k.secret) || this.byId.has(k.id)) throw new SnapshotError(["created", i], `key ${k.id} is there twice, or has the secret of another key`);
      this.add(k);
    }
  }
}

/** What can change in a seeded key, checked by hand: the contract has no schema of it. */
function readChanges(raw: unknown, path: Array<string | number>): Pick<StoredKey, "name" | "rate_limit_rpm" | "last_used_at" | "revoked_at"> {
  const r = object(raw, path);
  const at = (f: string) => [...path, f];
  return {
    name: string(r.name, at("name"), /^[\s\S]{1,200}$/),
    rate_limit_rpm: integerOrNull(r.rate_limit_rpm, at("rate_limit_rpm"), 1),
    last_used_at: stringOrNull(r.last_used_at, at("last_used_at"), DATE_TIME),
    revoked_at: stringOrNull(r.revoked_at, at("revoked_at"), DATE_TIME),
  };
}

/** `pk_test_demo_pro` → `pk_test_…`: enough to tell which kind of key, never the secret part. */
export function redactKey(key: string): string {
  const prefix = KEY_PREFIXES.find((p) => key.startsWith(p));
  return prefix ? `${prefix}…` : "…";
}
