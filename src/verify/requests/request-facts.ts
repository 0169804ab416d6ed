// What a request is, by the contract, before its response is looked at: which credentials it carries, and whether
// its parameters and body are valid. Worked out from the request itself (not from why the verifier sent it), so the
// same facts hold for a request seen by the gateway's proxy mode. Validity is judged by the mock gateway's own
// RequestValidator: one reading of the contract's request schemas for the gateway, the verifier and proxy mode.
import { createHash } from "node:crypto";
import type { Json } from "../../mock/core/contract/contract-build.js";
import { BadRequest } from "../../mock/core/contract/validation.js";
import { isJsonMediaType, mediaTypeCovers, mediaTypeOf, type ContractView } from "./contract-view.js";
import type { ExchangeRequest, Operation, RequestFacts } from "../types.js";

/** The name of the query parameter that carries credentials on streaming operations (`token`). */
export function tokenQueryParam(view: ContractView): string {
  const schemes = Object.values<Json>(view.contract.doc.components?.securitySchemes ?? {});
  return schemes.find((s) => s.type === "apiKey" && s.in === "query")?.name ?? "token";
}

export async function requestFacts(view: ContractView, op: Operation, req: ExchangeRequest): Promise<RequestFacts> {
  const url = new URL(req.url);
  const headerCredential = req.headers[view.apiKeyHeader.toLowerCase()] ?? req.headers.authorization ?? null;
  const queryCredential = url.searchParams.get(tokenQueryParam(view));
  const credentials = headerCredential ? "header" : queryCredential ? "token-query" : "none";
  const secret = headerCredential ?? queryCredential;
  const pathParams = view.pathParams(op, url.pathname.slice(basePathLength(url, op))) ?? {};
  const issues = view.requestValidator.checkParams(op, pathParams, url.searchParams, req.headers);
  const body = await bodyFacts(view, op, req);
  return {
    credentials,
    credentialId: secret ? createHash("sha256").update(secret).digest("hex").slice(0, 16) : null,
    pathParams,
    issues: [...issues, ...body.issues],
    unparseableBody: body.unparseableBody,
    unsupportedMediaType: body.unsupportedMediaType,
  };
}

/** Where the operation's path starts in the URL path (a target may sit under a base path, e.g. `/api`). */
function basePathLength(url: URL, op: Operation): number {
  const segments = op.template.split("/").length - 1;
  const parts = url.pathname.split("/");
  return parts.slice(0, parts.length - segments).join("/").length;
}

async function bodyFacts(view: ContractView, op: Operation, req: ExchangeRequest) {
  const none = { issues: [], unparseableBody: false, unsupportedMediaType: false };
  const declared = view.contract.deref(op.op.requestBody)?.content as Record<string, Json> | undefined;
  if (!declared) return none;
  const raw = Buffer.from(req.body ?? new Uint8Array());
  const mt = mediaTypeOf(req.headers["content-type"]);
  if (raw.length > 0 && !Object.keys(declared).some((d) => mediaTypeCovers(d, mt))) return { ...none, unsupportedMediaType: true };
  if (raw.length > 0 && isJsonMediaType(mt)) {
    try {
      JSON.parse(raw.toString("utf8"));
    } catch {
      return { ...none, unparseableBody: true };
    }
  }
  try {
    const { issues } = await view.requestValidator.checkBody(op, req.headers["content-type"], raw);
    return { ...none, issues };
  } catch (e) {
    // A form or multipart body that cannot be read: unparseable like malformed JSON (a 400 by decision E2).
    if (e instanceof BadRequest) return { ...none, unparseableBody: true };
    throw e;
  }
}
