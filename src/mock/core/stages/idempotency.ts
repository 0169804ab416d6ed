// Stage `idempotency`: the `Idempotency-Key` semantics the contract declares in `x-idempotency` (src/contract/idempotency.ts),
// on the operations that take the key (those whose parameters name its header). It sits before `readBody` and, for
// a request with a key, runs the stages after it itself (reading and validating the body, then the responders), so
// it can claim the key while the request is processed and see the answer:
//   no key, no workspace, or `Prefer` asking for an example: nothing to do (the next stages run);
//   the key's first request still being processed (its body arriving, or being answered): 409 idempotency_key_in_use,
//     before this request's body is read (its fingerprint is not known yet);
//   then the body is read and validated (a 400 or 422 of the request itself: never remembered), and
//   a remembered key (same workspace, within the window):
//     same fingerprint (method, path, query, body) the remembered answer, plus `Idempotent-Replayed: true`
//     another fingerprint                          422 idempotency_key_reused
//   otherwise the responders answer, and the answer is remembered unless its status is in `not_stored` (5xx, …):
//   the client may then send the key again.
// The records live in the workspace (store/idempotency-records.ts); the keys being processed only here, in memory
// (a request in progress is not state to keep across a restart), released when the answer is decided, or when the
// connection closes first.
import { streamedDigest } from "../http/body.js";
import { sha256Of, toBase64Url } from "../util/digest.js";
import { readIdempotency, storedStatus, type IdempotencyPolicy } from "../../../contract/idempotency.js";
import type { Route } from "../contract/contract-build.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Reply } from "../http/reply.js";
import { quote } from "../pipeline/log.js";
import type { Services } from "../pipeline/services.js";
import { only, runStages, TAKEN, type Outcome, type Stage } from "../pipeline/stage.js";
import type { IdempotencyRecords } from "../store/idempotency-records.js";

/** What one keyed request knows once its body is in. */
interface Keyed {
  key: string;
  records: IdempotencyRecords;
  /** Set by `lookup` when the responders are to answer: the answer is then remembered under it. */
  fingerprint: string | null;
}

/**
 * The stage, given the stages that read the body and the responders it runs for a keyed request. With --stateless
 * too: the examples answer, but a replay is still marked and another body still refused, as the contract says.
 */
export function idempotency(s: Services, body: readonly Stage[], responders: readonly Stage[]): Stage[] {
  const p = readIdempotency(s.contract.doc);
  const header = p.header.toLowerCase();
  const keyed = new Set<Route>(s.contract.router.routes.filter((r) => r.parameters.some((x) => x.in === "header" && x.name?.toLowerCase() === header)));
  const windowMs = p.window_seconds * 1000;
  /** workspace + key → the request processing it. */
  const inFlight = new Map<string, RequestContext>();

  const lookup = (k: Keyed): Stage =>
    function lookup(ctx) {
      const fp = fingerprint(ctx);
      const seen = k.records.get(k.key, s.clock.now(), windowMs);
      if (seen) return seen.fingerprint === fp ? replay(ctx, p, seen) : refuse(ctx, p, "reused", k.key);
      k.fingerprint = fp;
      return undefined;
    };

  return [
    only(function idempotency(ctx) {
      const raw = ctx.req.headers[header];
      if (raw === undefined || !keyed.has(ctx.route) || !ctx.principal || !ctx.wantsRealAnswer()) return undefined;
      const key = Array.isArray(raw) ? raw.join(", ") : raw;
      const slot = `${ctx.principal.workspaceId}\n${key}`;
      if (inFlight.has(slot)) return refuse(ctx, p, "in_use", key);
      inFlight.set(slot, ctx);
      const release = () => inFlight.get(slot) === ctx && inFlight.delete(slot);
      ctx.req.once("close", release);
      const k: Keyed = { key, records: s.store.workspace(ctx.principal.workspaceId).idempotency, fingerprint: null };
      const done = (out: Outcome): Outcome => {
        // A Reply of the responders (not TAKEN: an answer they sent by themselves) is remembered before the key is
        // released, so the next request with it finds one or the other.
        if (out && out !== TAKEN && k.fingerprint !== null && storedStatus(p, out.status)) remember(k, out, s.clock.now(), windowMs);
        release();
        return out;
      };
      const failed = (e: unknown): never => {
        release();
        throw e;
      };
      let out: Outcome | Promise<Outcome>;
      try {
        out = runStages([...body, lookup(k), ...responders], ctx);
      } catch (e) {
        return failed(e);
      }
      return out instanceof Promise ? out.then(done, failed) : done(out);
    }, (route) => keyed.has(route)),
  ];
}

/**
 * sha256 of the method, the path and the body's bytes. A multipart body is hashed without its boundary, which a
 * client may draw anew for each attempt of the same form.
 */
function fingerprint(ctx: RequestContext): string {
  // The query is part of the request: a stream upload's `media_type` and `title` travel there.
  const head = `${ctx.method} ${ctx.pathname}\n${ctx.query.toString()}\n`;
  const body = ctx.raw;
  if (!body?.length) return toBase64Url(sha256Of(head));
  // A body counted but never kept (a stream upload) was hashed as it arrived.
  const streamed = streamedDigest(body);
  if (streamed) return toBase64Url(sha256Of(head, streamed));
  const boundary = /^multipart\/[^;]*;.*\bboundary="?([^";]+)"?/i.exec(ctx.req.headers["content-type"] ?? "")?.[1];
  if (!boundary) return toBase64Url(sha256Of(head, body));
  // By hand: Buffer has no replaceAll. The boundary only marks the parts, so it is left out wherever it occurs.
  const marker = Buffer.from(boundary, "latin1");
  const parts: Uint8Array[] = [];
  for (let from = 0; ; ) {
    const at = body.indexOf(marker, from);
    parts.push(body.subarray(from, at < 0 ? undefined : at));
    if (at < 0) break;
    from = at + marker.length;
  }
  return toBase64Url(sha256Of(head, ...parts));
}

function remember(k: Keyed, out: Reply, now: number, windowMs: number): void {
  k.records.put(k.key, { fingerprint: k.fingerprint!, status: out.status, headers: { ...out.headers }, body: (out.body ?? Buffer.alloc(0)).toString("base64"), at: now }, windowMs);
}

function replay(ctx: RequestContext, p: IdempotencyPolicy, r: { status: number; headers: Record<string, string>; body: string }): Reply {
  return { status: r.status, headers: { ...r.headers, [p.replayed_header]: "true" }, body: Buffer.from(r.body, "base64"), rate: ctx.rate };
}

function refuse(ctx: RequestContext, p: IdempotencyPolicy, which: "in_use" | "reused", key: string): Reply {
  const e = p.errors[which];
  const k = quote(key);
  const detail =
    which === "in_use"
      ? `A request with the ${p.header} ${k} is still being processed; retry after it has been answered.`
      : `The ${p.header} ${k} was used with another request (method, path or body); use a new key for a new request.`;
  return ctx.json(e.status, { detail, error: e.error });
}
