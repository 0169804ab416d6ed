// unsupported-method (decision Y54): an undeclared method answers 405 with Allow listing the declared methods.
import { describe, expect, it } from "vitest";
import { unsupportedMethod } from "../../../src/verify/probe-checks/unsupported-method.js";
import { ContractView } from "../../../src/verify/index.js";
import type { Exchange } from "../../../src/verify/types.js";
import { contract } from "../../helpers/mock.js";

const view = new ContractView(contract);
const listWebhooks = view.operations.find((o) => o.operationId === "listWebhooks")!;
const exchange = (status: number, headers: Record<string, string>, kind: "unsupported-method" | null = "unsupported-method"): Exchange => ({
  operation: listWebhooks,
  request: { method: "DELETE", url: "http://127.0.0.1:1/v1/webhooks", headers: {}, body: null },
  response: { status, headers: new Headers(headers), body: new Uint8Array() },
  facts: {} as never,
  ...(kind ? { probe: { kind, expect: 405, why: "no operation declares DELETE on /v1/webhooks", allow: ["GET", "POST"] } } : {}),
});

describe("unsupported-method", () => {
  const check = unsupportedMethod().check;
  it("holds for 405 with an Allow naming every declared method (more is fine)", () => {
    expect(check(exchange(405, { allow: "GET, HEAD, POST" }))).toEqual([]);
  });
  it("reports a 2xx as acted on, a 404, a 405 without Allow, and an Allow that leaves a declared method out", () => {
    expect(check(exchange(200, {}))).toEqual(["DELETE /v1/webhooks (no operation declares it) answered 200: the method was acted on; expected 405 with Allow: GET, POST"]);
    expect(check(exchange(404, {}))![0]).toMatch(/answered 404; expected 405/);
    expect(check(exchange(405, {}))![0]).toMatch(/405 without an Allow header/);
    expect(check(exchange(405, { allow: "GET" }))![0]).toMatch(/leaves out POST/);
  });
  it("does not apply before routing (401, 403, 429) nor to another case", () => {
    for (const s of [401, 403, 429]) expect(check(exchange(s, {}))).toBeNull();
    expect(check(exchange(200, {}, null))).toBeNull();
  });
});
