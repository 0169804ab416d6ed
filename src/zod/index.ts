// `@avt/api-contract/zod`: the contract's schemas as zod 4 schemas, and the response validator the client's opt-in
// `validate` option takes (decision FE5). The client core never imports this module, so zod stays out of an app
// that does not validate.
import type { ResponseValidator } from "../client/client.js";
import { RESPONSES } from "./responses.generated.js";

export * from "./schemas.generated.js";
export { RESPONSES } from "./responses.generated.js";

/** A response body that does not match its operation's schema in the contract. */
export class ResponseValidationError extends Error {
  override name = "ResponseValidationError";
  constructor(
    /** The operation's `operationId`, e.g. `getAnalysis`. */
    readonly operationId: string,
    readonly status: number,
    /** The JSON path of the first problem, as keys and indexes (`["data", 0, "status"]`; `[]` for the body itself). */
    readonly path: ReadonlyArray<string | number>,
    /** The JSON pointer of that path (`/data/0/status`; `` for the body itself). */
    readonly pointer: string,
    readonly problem: string,
  ) {
    super(`${operationId}: the ${status} response's body does not match the contract at ${pointer || "/"}: ${problem}`);
  }
}

const pointerOf = (path: ReadonlyArray<PropertyKey>) => path.map((k) => "/" + String(k).replace(/~/g, "~0").replace(/\//g, "~1")).join("");

/**
 * Checks one response body: throws `ResponseValidationError` when it does not match the schema the contract gives
 * `METHOD path` (its template, e.g. `/v1/analyses/{analysis_id}`) for `status`; passes a status or an operation the
 * contract gives no JSON body.
 */
export function validateResponse(method: string, path: string, status: number, body: unknown): void {
  const entry = RESPONSES[`${method.toUpperCase()} ${path}`];
  const schema = entry?.[1][String(status)];
  if (!entry || !schema) return;
  const result = schema.safeParse(body);
  if (result.success) return;
  const issue = result.error.issues[0]!;
  throw new ResponseValidationError(entry[0], status, issue.path as Array<string | number>, pointerOf(issue.path), issue.message);
}

/** The client's `validate` option: `createClient({ ..., validate: responseValidator() })`. */
export function responseValidator(): ResponseValidator {
  return {
    async onResponse({ request, response, schemaPath }) {
      if (!/[/+]json\b/.test(response.headers.get("content-type") ?? "") || !RESPONSES[`${request.method} ${schemaPath}`]) return undefined;
      const text = await response.clone().text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return undefined; // not JSON (or empty): the caller's parse reports it
      }
      validateResponse(request.method, schemaPath, response.status, body);
      return undefined;
    },
  };
}
