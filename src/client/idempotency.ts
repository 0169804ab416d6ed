// Retries that never duplicate (decisions ID5–ID7): every call of an operation that takes the `Idempotency-Key`
// (write.generated.ts, from the contract's x-idempotency) carries one, made once per call (write.ts, `takesKey`) and
// sent again on every attempt, unless the caller set their own (theirs wins). A POST or PATCH without a key is not
// retried once its request may have reached the server (transport.ts): only a failure to connect, or a 429, is retried.
import { IDEMPOTENCY_HEADER } from "./contract.generated.js";

export { IDEMPOTENCY_HEADER };

/** A write the server may act on twice if it is sent twice: a POST or PATCH without a key. */
export function unsafeToResend(request: Request): boolean {
  const m = request.method;
  return (m === "POST" || m === "PATCH") && !request.headers.has(IDEMPOTENCY_HEADER);
}

/**
 * Error codes of a connection that never opened, so no byte of the request was sent: Node's (undici's) `cause`
 * codes. Browsers do not tell them apart; there every network failure counts as one after sending.
 */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** Whether a fetch failure happened before the request was sent (its `cause` chain names a connect error). */
export function failedBeforeSending(e: unknown): boolean {
  for (let c = e, i = 0; c && typeof c === "object" && i < 4; c = (c as { cause?: unknown }).cause, i++) {
    if (NOT_SENT.has((c as { code?: unknown }).code as string)) return true;
  }
  return false;
}
