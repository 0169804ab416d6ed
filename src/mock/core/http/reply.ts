// What a stage answers with: a status, headers and the body's bytes, sent by the server (http/respond.ts) with
// the headers every answer carries. Built whole before anything is written, so a stage never half-answers.

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
  /** The rate-limit headers of the request's bucket, as a flat [name, value, …] list: sent after `headers`. */
  rate?: readonly string[];
  /**
   * Sent while the request body is still arriving (a body over its limit): the connection closes after the
   * answer, lingering (see http/body.ts), so the client reads the answer instead of a reset.
   */
  linger?: boolean;
}

/** A JSON answer: `value` serialized once, `Content-Type: application/json` before `headers`. */
export function json(status: number, value: unknown, headers?: Record<string, string>, rate?: readonly string[]): Reply {
  return { status, headers: { "Content-Type": "application/json", ...headers }, body: Buffer.from(JSON.stringify(value)), rate };
}
