// Type-level test (tsc --noEmit covers test/): the client is an openapi-fetch `Client<paths>`, so the openapi-fetch
// family's own bindings (openapi-react-query's `createClient(client)`) take it without a cast (issue 45, finding 2).
import { describe, expectTypeOf, it } from "vitest";
import type { Client } from "openapi-fetch";
import createQueryClient from "openapi-react-query";
import { createClient, type ApiClient, type paths } from "../../src/client/index.js";

/** Never called: only compiled. */
function bindings(client: ApiClient) {
  const asFetchClient: Client<paths> = client;
  const $api = createQueryClient(client);
  return { asFetchClient, $api };
}

describe("the client as openapi-fetch's Client<paths>", () => {
  it("is assignable, and keeps the methods openapi-fetch has (OPTIONS, HEAD, TRACE)", () => {
    const client = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: "pk_test_x" });
    for (const m of ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const) expectTypeOf(client[m]).toBeFunction();
    expectTypeOf(bindings).toBeFunction();
  });
});
