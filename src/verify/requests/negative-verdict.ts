// The verdict on a negative value (negatives.ts), shared by the check that judges the exchange
// (checks/negative-values.ts) and the report's list by field: a leaf, so the check imports no sending code.

/** What one negative case found (the report's `negatives`, by field). */
export interface NegativeResult {
  operationId: string;
  location: "body" | "query";
  field: string;
  constraint: string;
  /** The statuses the contract promises for it. */
  expected: number[];
  /** The status answered, or null when it was not sent (budget, writes not allowed). */
  status: number | null;
  verdict: "rejected" | "accepted" | "wrong-answer" | "inconclusive" | "not-sent";
}

/** A negative case's verdict: refused as the contract says (naming the field), accepted, or refused otherwise. */
export function verdictOf(status: number, expect: number[], body: Uint8Array, field: string): NegativeResult["verdict"] {
  if ([401, 403, 429].includes(status)) return "inconclusive";
  if (status >= 200 && status < 300) return "accepted";
  if (!expect.includes(status)) return "wrong-answer";
  return status !== 422 || namesField(body, field) ? "rejected" : "wrong-answer";
}

/** A 422 body's `detail` has an item whose `loc` names the field (`body.config.language` → the `loc` ends with it). */
export function namesField(body: Uint8Array, field: string): boolean {
  try {
    return locNames((JSON.parse(Buffer.from(body).toString("utf8")) as { detail?: unknown })?.detail, field);
  } catch {
    return false;
  }
}

/** An array of `{loc}` items (a 422's `detail`, the validator's issues) has one whose `loc` names `field`. */
export function locNames(detail: unknown, field: string): boolean {
  const want = field.split(".");
  const tail = want.slice(1);
  return Array.isArray(detail) && detail.some((d) => {
    const loc = (d as { loc?: unknown })?.loc;
    if (!Array.isArray(loc)) return false;
    const got = loc.map(String);
    // The location and the field itself (the loc may go deeper, into an item of an array); an unexpected property
    // may be named by its object (`body`) with the name in the message.
    return got[0] === want[0] && (tail.every((t, i) => got[i + 1] === t) || (tail.at(-1) === "unexpected_field" && tail.slice(0, -1).every((t, i) => got[i + 1] === t)));
  });
}
