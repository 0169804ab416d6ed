// The idempotency-honoured check on single exchanges, as the gateway's proxy mode judges live traffic: the cases the
// verifier's own requests do not reach (a 409 while in use, a replay seen first, an unkeyed or exempt exchange).
import { describe, expect, it } from "vitest";
import { checkExchange, ContractView } from "../../../src/verify/index.js";
import { idempotencyHonoured } from "../../../src/verify/checks/idempotency-honoured.js";
import type { Check } from "../../../src/verify/types.js";
import { contract } from "../../helpers/mock.js";

const view = new ContractView(contract);
const BOARD = { name: "Board" };

async function judge(checks: Check[], o: { operationId?: string; key?: string; body?: unknown; status: number; response: unknown; replayed?: boolean }) {
  const operation = view.operations.find((x) => x.operationId === (o.operationId ?? "createBoard"))!;
  const headers: Record<string, string> = { "x-api-key": "pk_test_k", "content-type": "application/json", ...(o.key ? { "idempotency-key": o.key } : {}) };
  const { results } = await checkExchange(view, checks, {
    operation,
    request: { method: "POST", url: `http://127.0.0.1:1${operation.template}`, headers, body: Buffer.from(JSON.stringify(o.body ?? BOARD)) },
    response: { status: o.status, headers: new Headers({ "content-type": "application/json", ...(o.replayed ? { "idempotent-replayed": "true" } : {}) }), body: Buffer.from(JSON.stringify(o.response)) },
  });
  return results.find((r) => r.rule === "idempotency-honoured")?.violations ?? null;
}

describe("idempotency-honoured on single exchanges", () => {
  it("a replay and another body pass when the target keeps the rules; a 409 in use is always allowed", async () => {
    const checks = [idempotencyHonoured(view)];
    expect(await judge(checks, { key: "k1", status: 201, response: { id: "brd_1" } })).toBeNull(); // the first: nothing to judge
    expect(await judge(checks, { key: "k1", status: 409, response: { detail: "busy", error: "idempotency_key_in_use" } })).toEqual([]);
    expect(await judge(checks, { key: "k1", status: 201, response: { id: "brd_1" }, replayed: true })).toEqual([]);
    expect(await judge(checks, { key: "k1", body: { name: "Other" }, status: 422, response: { detail: "reused", error: "idempotency_key_reused" } })).toEqual([]);
  });

  it("a replay without the header, with another id, or another status is reported", async () => {
    const checks = [idempotencyHonoured(view)];
    await judge(checks, { key: "k2", status: 201, response: { id: "brd_1" } });
    const v = await judge(checks, { key: "k2", status: 200, response: { id: "brd_2" } });
    expect(v).toHaveLength(3);
    expect(v!.join("\n")).toMatch(/answered 200; the first answer was 201[\s\S]*without Idempotent-Replayed: true[\s\S]*acted on twice/);
  });

  it("a replay seen before its first answer is not taken for the first", async () => {
    const checks = [idempotencyHonoured(view)];
    expect(await judge(checks, { key: "k3", status: 201, response: { id: "brd_1" }, replayed: true })).toBeNull();
    expect(await judge(checks, { key: "k3", status: 201, response: { id: "brd_1" } })).toBeNull(); // now the first
  });

  it("a first answer that is not 2xx is not remembered; unkeyed and exempt exchanges are not judged", async () => {
    const checks = [idempotencyHonoured(view)];
    await judge(checks, { key: "k4", status: 500, response: { detail: "oops" } });
    expect(await judge(checks, { key: "k4", status: 201, response: { id: "brd_9" } })).toBeNull();
    expect(await judge(checks, { status: 201, response: { id: "brd_1" } })).toBeNull();
    expect(await judge(checks, { operationId: "createQuery", key: "k5", status: 200, response: {} })).toBeNull();
  });
});
