// The shapes every part of the verifier shares. A check sees one exchange — the contract's operation, the request
// as sent and the response as received — and nothing of the command line, so the gateway's proxy mode can run the
// same checks on live traffic, one request/response pair at a time.
import type { Route } from "../mock/core/contract/contract-build.js";
import type { ValidationIssue } from "../mock/core/contract/validation.js";

/** One operation of the contract, as the router of the mock gateway knows it (template, method, op, category…). */
export type Operation = Route;

export interface ExchangeRequest {
  /** Upper case, e.g. `GET`. */
  method: string;
  /** The absolute URL as sent. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array | null;
}

export interface ExchangeResponse {
  status: number;
  headers: Headers;
  /** The body as read: whole, or what arrived of an event stream before the verifier stopped reading. */
  body: Uint8Array;
  /** The verifier stopped reading an open stream (the last event may be cut short). */
  truncated?: boolean;
}

/** What the verifier knows about the request before looking at the response (see request-facts.ts). */
export interface RequestFacts {
  /** Credentials in headers (`X-API-Key`, `Authorization`), in the `token` query parameter, or none. */
  credentials: "header" | "token-query" | "none";
  /** The value of the credential header, to tell callers apart (never printed). */
  credentialId: string | null;
  /** Path parameters taken from the URL by the operation's template. */
  pathParams: Record<string, string>;
  /** Violations of the contract's request schemas (parameters and body); empty for a valid request. */
  issues: ValidationIssue[];
  /** The body cannot be parsed: malformed JSON, or a form or multipart body that cannot be read. */
  unparseableBody: boolean;
  /** The body's media type is not one the operation takes (a 400 by decision E2). */
  unsupportedMediaType: boolean;
}

/** A round-trip step (crud-roundtrip.ts): which step of which resource group, and what the step relies on. */
export interface ScenarioStep {
  group: string;
  step: "create" | "read" | "update" | "read-updated" | "delete" | "read-deleted";
  /** The id the create answered with (every later step is about it). */
  id?: string;
  /** The JSON body sent by create or update, whose scalar fields a later read must show unchanged. */
  sent?: Record<string, unknown>;
  /** Timestamp property a soft delete sets (`revoked_at` for `revokeApiKey`), if the resource has one. */
  softDeleteField?: string | null;
}

/**
 * A negative case the verifier made from a rule of the contract (wrong credentials, `x-references`,
 * `x-lifecycle`): what it tries and the status the contract promises for it.
 */
export interface Probe {
  kind: "unknown-key" | "revoked-key" | "unknown-reference" | "wrong-state-reference" | "illegal-transition" | "other-tenant" | "other-tenant-list" | "negative-value" | "unsupported-method";
  /** The status the contract promises, e.g. 401, 400, 409. */
  expect: number;
  /** Why, in words: the rule of the contract that says so. */
  why: string;
  /** JSON pointer of that rule in the contract (an `x-references`, an `x-lifecycle`'s `requires`). */
  pointer?: string;
  /** `negative-value`: the field broken, from its location (`body.config.language`, `query.limit`). */
  field?: string;
  /** `other-tenant`, `other-tenant-list`: the id of the first key's resource that the second key must not see. */
  id?: string;
  /** `unsupported-method`: the methods the contract declares on the path, upper case. */
  allow?: string[];
}

/** One page of a walk through a list (pagination.ts): which walk, which page, the `limit` asked for. */
export interface PageStep {
  walk: string;
  /** 1 for the first page. */
  page: number;
  limit: number;
  /** The walk stops after this page whatever it says (the oracle's budget). */
  maxPages: number;
  /**
   * `foreign-cursor`: a request with a cursor this list never gave out (expects 400); `whole`: the list's first page
   * with the largest `limit` it takes, after the walk, compared with what the walk saw (probes/whole-page.ts).
   */
  kind: "page" | "foreign-cursor" | "whole";
}

/** A request no HTTP parser takes, sent over a raw socket (malformed.ts). */
export interface MalformedStep {
  kind: "control-byte" | "request-line" | "no-colon";
  /** It is no HTTP/1.1 message: only a 400 (or a closed connection) answers it. A control byte may also be kept. */
  mustRefuse: boolean;
}

export interface Exchange {
  operation: Operation;
  request: ExchangeRequest;
  response: ExchangeResponse;
  facts: RequestFacts;
  scenario?: ScenarioStep;
  probe?: Probe;
  page?: PageStep;
  malformed?: MalformedStep;
}

/**
 * One rule, one job (like Schemathesis' checks). `check` returns the violations of its rule in this exchange
 * (an empty list when it holds), or null when the rule does not apply (then it is not counted as run).
 */
export interface Check {
  readonly name: string;
  readonly description: string;
  check(exchange: Exchange): string[] | null;
  /** JSON pointer into the contract of the rule this check applies to the exchange (reproduce.ts has a default). */
  schemaPath?(exchange: Exchange): string;
}

export interface Violation {
  operationId: string;
  method: string;
  /** The contract's path template, e.g. `/v1/analyses/{analysis_id}`. */
  path: string;
  status: number;
  rule: string;
  message: string;
  /** The request that showed it, credentials redacted (method and URL path with query). */
  request: string;
  /** How many exchanges showed this same violation. */
  count: number;
  /** The cases that showed it (`example default`, `unknown-key`, `pages 1`, …): what `--replay` sends again. */
  cases: string[];
  /** Everything needed to see it again (the first exchange that showed it). */
  reproduction?: Reproduction;
}

/** A violation's exchange, credentials redacted, bodies cut to 2 KB. */
export interface Reproduction {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  response: { status: number; headers: Record<string, string>; body: string };
  /** JSON pointer into the contract of what failed (a response schema, the declared responses, a rule's extension). */
  schema_path: string;
  /** The request as a curl command; the credential is `$API_KEY`. */
  curl: string;
}
