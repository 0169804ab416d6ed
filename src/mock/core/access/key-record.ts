// A key the mock is started with, and the prefixes every key has. Below keys.ts (the key store) and keys-file.ts
// (the keys file), which both read it (decision LY1).
import type { PlanName } from "../../../contract/policy.js";

export const KEY_PREFIXES = ["pk_live_", "pk_test_"] as const;

/** A key the mock is started with (demo keys, keys file, test keys). */
export interface KeyRecord {
  key: string;
  workspace_id: string;
  plan: PlanName;
  rate_limit_rpm?: number | null;
  /** The key's workspace is frozen: every request answers 403. */
  frozen?: boolean;
  label?: string;
}
