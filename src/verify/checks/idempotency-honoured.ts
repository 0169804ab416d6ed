// idempotency-honoured: the target keeps the contract's `Idempotency-Key` rules (x-idempotency, src/contract/idempotency.ts).
// With --allow-writes the run sends, per selected operation that takes the key, its first example with a new key,
// the same request again, and a different valid body with the same key (`idempotencyCases`, sent in order by
// runner.ts). The check judges any exchange that carries a key, so the gateway's proxy mode judges live traffic too:
//   the first answer of a key, when 2xx, is remembered (anything else is not: the key may be sent again);
//   the same method, path and body again: the same status, the same `id`, and `Idempotent-Replayed: true`;
//   another body: 422 `idempotency_key_reused`.
// A 409 `idempotency_key_in_use` (the first request still being processed) is always allowed. The first answers are
// kept for the MAX_KEYS latest keys (a long proxy session would otherwise grow without end); a replay is never taken
// for a first answer (live traffic may show it first).
import { createHash, randomUUID } from "node:crypto";
import { readIdempotency } from "../../contract/idempotency.js";
import type { CaseBuilder, Parts, RequestCase } from "../requests/cases.js";
import type { ContractView } from "../requests/contract-view.js";
import type { Check, Exchange, Operation } from "../types.js";
import { parseJson } from "./util.js";

const MAX_KEYS = 10_000;

interface First {
  fingerprint: string;
  status: number;
  id: unknown;
}

/** Whether the operation takes the key: its parameters name the header. */
function takesKey(op: Operation, header: string): boolean {
  return op.parameters.some((p) => p.in === "header" && String(p.name).toLowerCase() === header);
}

function fingerprint(e: Exchange): string {
  const url = new URL(e.request.url);
  return createHash("sha256").update(`${e.request.method} ${url.pathname}\n${url.searchParams.toString()}\n`).update(e.request.body ?? new Uint8Array()).digest("hex");
}

function bodyOf(e: Exchange): { id?: unknown; error?: unknown } {
  const b = parseJson(e.response);
  return b.ok && b.value && typeof b.value === "object" ? (b.value as { id?: unknown; error?: unknown }) : {};
}

export function idempotencyHonoured(view: ContractView): Check {
  const p = readIdempotency(view.contract.doc);
  const header = p.header.toLowerCase();
  const firsts = new Map<string, First>();
  return {
    name: "idempotency-honoured",
    description: `A repeated ${p.header} replays the first answer (${p.replayed_header}); another body with it answers ${p.errors.reused.status}.`,
    check(e) {
      const key = e.request.headers[header];
      if (key === undefined || !takesKey(e.operation, header)) return null;
      const slot = `${e.facts.credentialId ?? ""}\n${key}`;
      const fp = fingerprint(e);
      const first = firsts.get(slot);
      const { status } = e.response;
      const body = bodyOf(e);
      if (!first) {
        if (status >= 200 && status < 300 && e.response.headers.get(p.replayed_header) === null) {
          firsts.set(slot, { fingerprint: fp, status, id: body.id });
          if (firsts.size > MAX_KEYS) firsts.delete(firsts.keys().next().value!);
        }
        return null;
      }
      if (status === p.errors.in_use.status && body.error === p.errors.in_use.error) return [];
      if (first.fingerprint !== fp) {
        const ok = status === p.errors.reused.status && body.error === p.errors.reused.error;
        return ok ? [] : [`the ${p.header} sent again with another body answered ${status}${body.error ? ` ${String(body.error)}` : ""}; expected ${p.errors.reused.status} ${p.errors.reused.error}`];
      }
      const problems: string[] = [];
      if (status !== first.status) problems.push(`the same request with the same ${p.header} answered ${status}; the first answer was ${first.status}`);
      if (e.response.headers.get(p.replayed_header) !== "true") problems.push(`the same request with the same ${p.header} was answered without ${p.replayed_header}: true`);
      if (first.id !== undefined && body.id !== first.id) problems.push(`the same request with the same ${p.header} answered id ${JSON.stringify(body.id)}; the first answer had ${JSON.stringify(first.id)}: acted on twice`);
      return problems;
    },
  };
}

/**
 * The requests that put a target's key handling to the test, for one operation that takes the key (none for the
 * others): its first example with a new key, the same again, and, when a different valid body can be made, that
 * body on the same path with the same key. Sent in this order, each after the previous one is answered.
 */
/** `base`: the example's parts with its referenced ids made (prerequisites.ts), sent instead of the example's own. */
export async function idempotencyCases(view: ContractView, builder: CaseBuilder, op: Operation, base?: Parts): Promise<RequestCase[]> {
  const p = readIdempotency(view.contract.doc);
  if (op.public || !takesKey(op, p.header.toLowerCase())) return [];
  const all = await builder.build(op, 1, true);
  const found = all.find((c) => c.kind === "example");
  if (!found) return [];
  const example = base ? { ...found, ...(await builder.render(op, base)) } : found;
  const headers = { [p.header.toLowerCase()]: `avt-verify-${randomUUID()}` };
  const cases: RequestCase[] = [
    { ...example, label: `${p.header} first`, headers },
    { ...example, label: `${p.header} again`, headers },
  ];
  const other = all.find((c) => c.kind === "generated" && c.body && !sameBytes(c.body.bytes, example.body?.bytes));
  if (other) cases.push({ ...other, path: example.path, label: `${p.header} other body`, headers });
  return cases;
}

function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return !!b && a.length === b.length && Buffer.from(a).equals(Buffer.from(b));
}
