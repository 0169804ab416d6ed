// Small readers the checks share.
import type { Exchange, ExchangeResponse, Probe } from "../types.js";

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** The body as JSON, or why it is not JSON. */
export function parseJson(res: ExchangeResponse): Parsed {
  const text = Buffer.from(res.body).toString("utf8");
  if (text.trim() === "") return { ok: false, error: "the body is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: `the body is not JSON: ${JSON.stringify(text.slice(0, 80))}${text.length > 80 ? "…" : ""}` };
  }
}

/** A response that carries no body by definition: to HEAD, or 1xx, 204, 304. */
export function bodyless(method: string, status: number): boolean {
  return method === "HEAD" || status < 200 || status === 204 || status === 304;
}

/** ajv's errors as one short line. */
export function describeErrors(errors: Array<{ instancePath: string; message?: string }> | null | undefined, max = 3): string {
  const list = (errors ?? []).slice(0, max).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
  const more = (errors?.length ?? 0) - list.length;
  return list.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** `X-RateLimit-Limit: 300` as 300; undefined when missing, NaN when not a non-negative integer. */
export function integerHeader(headers: Headers, name: string): number | undefined {
  const v = headers.get(name);
  if (v === null) return undefined;
  return /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
}

export const NON_2XX_EXPECTATION_INCONCLUSIVE = [401, 403, 429];

/**
 * The verdict on a negative case the verifier made from a rule of the contract (`Exchange.probe`): the promised
 * status, or a violation naming the rule. A 429 answers nothing about the rule (the caller was limited first).
 */
export function judgeProbe(e: Exchange, kinds: ReadonlyArray<Probe["kind"]>): string[] | null {
  const p = e.probe;
  if (!p || !kinds.includes(p.kind) || e.response.status === 429) return null;
  if (e.response.status === p.expect) return [];
  return [`${p.kind}: answered ${e.response.status}; expected ${p.expect}, because ${p.why}`];
}
