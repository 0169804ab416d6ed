// The request id (issue 49): the root extension `x-request-id` names a shared header that every HTTP answer of the
// contract carries, and its schema bounds what a server echoes.
import { describe, expect, it } from "vitest";
import { deref, doc, operations } from "../helpers/contract.js";
import { answerId, echoable, idMaker, readRequestId } from "../../src/contract/request-id.js";

const policy = readRequestId(doc);

describe("x-request-id", () => {
  it("names the shared X-Request-Id header, echoed, with server ids prefixed req_", () => {
    expect(policy.header).toBe("X-Request-Id");
    expect(policy.echo).toBe(true);
    expect(policy.prefix).toBe("req_");
    expect(doc.components.headers["X-Request-Id"].required).toBe(true);
  });

  it("every response of every operation but a WebSocket's 101 carries it", () => {
    let checked = 0;
    for (const { op } of operations()) {
      for (const [code, r] of Object.entries<object>(op.responses)) {
        if (code === "101") continue;
        expect(Object.keys(deref<{ headers?: object }>(r).headers ?? {}), `${op.operationId} ${code}`).toContain("X-Request-Id");
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it("echoes a bounded, printable id and replaces anything else", () => {
    const fresh = idMaker(policy);
    expect(answerId(policy, "trace-42/abc", fresh)).toBe("trace-42/abc");
    for (const bad of [undefined, "", "a b", "x".repeat(129), "ä", "a\u0007"]) {
      expect(echoable(policy, bad), JSON.stringify(bad)).toBe(false);
      expect(answerId(policy, bad, fresh)).toMatch(/^req_[0-9a-f]{12}[0-9a-z]{6,}$/);
    }
    expect(echoable(policy, "x".repeat(128))).toBe(true);
    expect(fresh()).not.toBe(fresh());
  });

  it("a bundle without the extension, or without the header's bounds, is refused by name", () => {
    expect(() => readRequestId({})).toThrow(/contract has no x-request-id/);
    expect(() => readRequestId({ "x-request-id": { header: "X-Request-Id", prefix: "req_" }, components: { headers: { "X-Request-Id": { schema: { type: "string" } } } } })).toThrow(/maxLength and pattern/);
  });
});
