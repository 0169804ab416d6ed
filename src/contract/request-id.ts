// The request-id rule as the contract states it in the root extension `x-request-id` (spec/README.md): the header
// every answer carries, whether a request's own value is echoed, and the prefix of an id the server makes; the
// value's bounds are the header component's schema (`maxLength`, `pattern`). Read by the mock's `requestId` stage,
// the proxy, verify and the tests; nothing here holds a number of its own.

export interface RequestIdPolicy {
  /** The header (`X-Request-Id`), on requests and on every answer. */
  header: string;
  /** A request's own id comes back when it fits the bounds. */
  echo: boolean;
  /** The prefix of an id the server makes (`req_`). */
  prefix: string;
  /** The longest id echoed. */
  maxLength: number;
  /** The value an echoed id must match (the header schema's `pattern`). */
  pattern: RegExp;
}

const NAME = "x-request-id";

/** Reads and checks the policy of a bundled contract; every problem names its place. */
export function readRequestId(doc: { [key: string]: unknown }): RequestIdPolicy {
  const p = doc[NAME] as { header?: unknown; echo?: unknown; prefix?: unknown } | undefined;
  if (!p || typeof p !== "object") throw new Error(`contract has no ${NAME}`);
  if (typeof p.header !== "string" || !p.header) throw new Error(`${NAME}.header must be a header name`);
  if (typeof p.prefix !== "string" || !p.prefix) throw new Error(`${NAME}.prefix must be a non-empty string`);
  const components = (doc.components ?? {}) as { headers?: Record<string, { schema?: { maxLength?: unknown; pattern?: unknown } }> };
  const schema = components.headers?.[p.header]?.schema;
  if (!schema) throw new Error(`${NAME}.header: components.headers.${p.header} is missing (spec/components/headers/${p.header}.yaml)`);
  if (typeof schema.maxLength !== "number" || typeof schema.pattern !== "string") {
    throw new Error(`components.headers.${p.header}.schema must state maxLength and pattern (the values ${NAME} echoes)`);
  }
  return { header: p.header, echo: p.echo === true, prefix: p.prefix, maxLength: schema.maxLength, pattern: new RegExp(schema.pattern) };
}

/** Whether `value` (a request's header) is echoed as it is: bounded, and matching the schema's pattern. */
export function echoable(policy: RequestIdPolicy, value: string | undefined): value is string {
  return policy.echo && value !== undefined && value.length > 0 && value.length <= policy.maxLength && policy.pattern.test(value);
}

/**
 * A maker of fresh ids: the prefix, a random part drawn once (Web Crypto, in Node and browsers alike) and a counter,
 * so each id is unique to the process and costs no random draw per request.
 */
export function idMaker(policy: RequestIdPolicy): () => string {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  const base = policy.prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  let n = 0;
  return () => base + (n++).toString(36).padStart(6, "0");
}

/** The id of an answer: the request's own when echoable, else a fresh one. */
export function answerId(policy: RequestIdPolicy, sent: string | undefined, fresh: () => string): string {
  return echoable(policy, sent) ? sent : fresh();
}
