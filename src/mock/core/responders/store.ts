// Responder `store`: the stateful mock (store/). Operations on what the contract describes as stored resources
// are answered from the workspace's store: creates keep what was sent, reads show what was written, lists page
// through it, lifecycles move it. A `Prefer` asking for another response or a named example, and operations the
// store does not keep (`/v1/query`, health), are left to the examples.
import type { Contract, Json } from "../contract/contract-build.js";
import type { Reply } from "../http/reply.js";
import { COMPLETION_KEY } from "../store/completion.js";
import { handle } from "../store/ops.js";
import { StoreError } from "../store/store.js";
import type { StageFactory } from "../pipeline/stage.js";
import { MOCK_NOTICE_HEADER } from "../events/webhooks.js";

/** Shared by every answer with a body (send() only reads a reply's headers). */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "Content-Type": "application/json" });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The contract's download links (`x-completion` `by: download-link`) are signed HTTPS links that expire; the mock's
 * are signed and expire too, but are plain `http://` on its loopback address (decision RM20). An answer holding one
 * says so; found by its bytes (`"download_url":"http://`), so a stored read stays a buffer copy.
 */
function linkNotices(contract: Contract): { needles: Buffer[]; headers: Readonly<Record<string, string>> } {
  const props = new Set<string>();
  const schemas = new Set<string>();
  for (const [name, schema] of Object.entries<Json>(contract.doc.components?.schemas ?? {})) {
    for (const entries of Object.values<Json[]>(schema?.[COMPLETION_KEY] ?? {})) {
      for (const e of entries) if (e.by === "download-link" && e.property) props.add(e.property) && schemas.add(`${name}.yaml`);
    }
  }
  const notice = `${[...props].join(", ")} is plain http:// on this mock's loopback address, signed and expiring in an hour; the service's is an HTTPS link (${[...schemas].join(", ")}).`;
  return { needles: [...props].map((p) => Buffer.from(`"${p}":"http://`)), headers: Object.freeze({ ...JSON_HEADERS, [MOCK_NOTICE_HEADER]: notice }) };
}

/**
 * The headers of an answer with body `body`: with the notice when it holds a download link. The verdict is kept per
 * buffer (a WeakMap, so it goes with its bytes): a stored record's and a list page's bytes are made once per version
 * (store/records.ts) and answered again and again, so they are scanned once rather than on every read.
 */
function noticeHeaders(links: ReturnType<typeof linkNotices>): (body: Buffer) => Readonly<Record<string, string>> {
  const seen = new WeakMap<Buffer, Readonly<Record<string, string>>>();
  return (body) => {
    let headers = seen.get(body);
    if (headers === undefined) {
      headers = JSON_HEADERS;
      for (const n of links.needles) if (body.includes(n)) headers = links.headers;
      seen.set(body, headers);
    }
    return headers;
  };
}

export const store: StageFactory = (s) => {
  const headersOf = noticeHeaders(linkNotices(s.contract));
  return function store(ctx): Reply | undefined {
    if (!ctx.principal || !ctx.wantsRealAnswer()) return undefined;
    try {
      const a = handle(s.store, { route: ctx.route, params: ctx.params, query: ctx.query, body: ctx.body, workspaceId: ctx.principal.workspaceId, scenario: ctx.scenario });
      if (!a) return undefined;
      const body = a.body;
      const headers = body ? headersOf(body) : NO_HEADERS;
      return { status: a.status, headers, body, rate: ctx.rate };
    } catch (e) {
      if (e instanceof StoreError) return ctx.json(e.status, { detail: e.message });
      throw e;
    }
  };
};
