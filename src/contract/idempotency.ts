// The idempotency rules as the contract states them in the root extension `x-idempotency` (spec/README.md): the
// header, the window, what is remembered and the error codes. Read by the mock's `idempotency` stage and by verify;
// nothing here holds a number of its own.

export interface IdempotencyError {
  status: number;
  error: string;
}

export interface IdempotencyPolicy {
  /** The request header (`Idempotency-Key`). */
  header: string;
  /** The shared parameter component every keyed operation references. */
  parameter: string;
  methods: string[];
  path_prefixes: string[];
  scope: "workspace";
  window_seconds: number;
  fingerprint: Array<"method" | "path" | "query" | "body">;
  /** Set to `true` on a replayed answer. */
  replayed_header: string;
  stored: Array<"status" | "headers" | "body">;
  /** Statuses never remembered: exact codes (`"400"`) or classes (`"5XX"`). */
  not_stored: string[];
  errors: { in_use: IdempotencyError; reused: IdempotencyError };
  /** operationId → why it takes no key. */
  exempt?: Record<string, string>;
}

const NAME = "x-idempotency";

/** Reads and checks the policy of a bundled contract; every problem names its place under `x-idempotency`. */
export function readIdempotency(doc: { [key: string]: unknown }): IdempotencyPolicy {
  const p = doc[NAME] as IdempotencyPolicy | undefined;
  if (!p || typeof p !== "object") throw new Error(`contract has no ${NAME}`);
  const need = (ok: boolean, field: string, what: string) => {
    if (!ok) throw new Error(`${NAME}.${field} must be ${what}`);
  };
  need(typeof p.header === "string" && p.header.length > 0, "header", "a header name");
  need(typeof p.replayed_header === "string" && p.replayed_header.length > 0, "replayed_header", "a header name");
  need(Number.isInteger(p.window_seconds) && p.window_seconds > 0, "window_seconds", "a positive integer");
  need(Array.isArray(p.not_stored) && p.not_stored.every((s) => /^[1-5](\d\d|XX)$/.test(String(s))), "not_stored", 'a list of statuses ("400") or classes ("5XX")');
  for (const which of ["in_use", "reused"] as const) {
    const e = p.errors?.[which];
    need(!!e && Number.isInteger(e.status) && typeof e.error === "string", `errors.${which}`, "{ status, error }");
  }
  return p;
}

/** Whether an answer of `status` is remembered for its key (`not_stored` says which are not). */
export function storedStatus(p: IdempotencyPolicy, status: number): boolean {
  const code = String(status);
  return !p.not_stored.some((s) => s === code || (s.endsWith("XX") && s[0] === code[0]));
}
