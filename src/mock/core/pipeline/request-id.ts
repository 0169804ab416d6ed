// Stage `requestId`, the first of every list (pipeline.ts): names the request with the id its every answer carries
// (`X-Request-Id`, the root extension `x-request-id`, decisions RQ1-RQ3): the request's own when it fits the
// header's schema, else a fresh `req_…` one. It answers nothing; the header goes out with the answer (serve.ts,
// the event streams), on a refusal of an upgrade too. Here rather than in stages/, which is full (25 files).
import { answerId, idMaker, readRequestId } from "../../../contract/request-id.js";
import type { Services } from "./services.js";
import type { StageFactory } from "./stage.js";

/** A fresh `[X-Request-Id, id]` for each answer the server gives before any pipeline runs (http-server.ts). */
export function freshIdHead(s: Services): () => string[] {
  const policy = readRequestId(s.contract.doc);
  const fresh = idMaker(policy);
  return () => [policy.header, fresh()];
}

export const requestId: StageFactory = (s) => {
  const policy = readRequestId(s.contract.doc);
  const fresh = idMaker(policy);
  const lower = policy.header.toLowerCase();
  return function requestId(ctx) {
    const sent = ctx.req.headers[lower];
    ctx.idHead = [policy.header, answerId(policy, typeof sent === "string" ? sent : undefined, fresh)];
    return undefined;
  };
};
