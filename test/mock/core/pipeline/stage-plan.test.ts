// The stages after `route` run per operation (stage.ts `perRoute`): a stage that declares `appliesTo` is left out of
// the operations it excludes. That is only sound if such a stage answers nothing and changes nothing on every
// request to those operations: checked here for each such stage of the pipeline and each operation of the
// contract, with a request that has every credential and key it could look at.
import { describe, expect, it } from "vitest";
import { RequestContext } from "../../../../src/mock/core/pipeline/context.js";
import { nodePlatform } from "../../../../src/mock/homes/node/platform.js";
import { billing } from "../../../../src/mock/core/responders/billing.js";
import { keys } from "../../../../src/mock/core/responders/keys.js";
import { oauth } from "../../../../src/mock/core/responders/oauth.js";
import { sse } from "../../../../src/mock/core/responders/sse.js";
import { upgradeRequired } from "../../../../src/mock/core/responders/upgrade-required.js";
import { webhooks } from "../../../../src/mock/core/responders/webhooks.js";
import { buildServices } from "../../../../src/mock/core/pipeline/services.js";
import { httpPipeline } from "../../../../src/mock/core/pipeline/pipeline.js";
import { idempotency } from "../../../../src/mock/core/stages/idempotency.js";
import { perRoute, runStages, TAKEN, type Stage } from "../../../../src/mock/core/pipeline/stage.js";
import type { Route } from "../../../../src/mock/core/contract/contract-build.js";
import { contract } from "../../../helpers/mock.js";

const s = buildServices({ contract, log: null }, nodePlatform);
const routes = s.contract.router.routes;

/** A request to `route` as node:http would hand it over, with an API key and an Idempotency-Key. */
function context(route: Route): RequestContext {
  const path = route.template.replace(/\{[^}]+\}/g, "x_1");
  const headers = { host: "127.0.0.1", "x-api-key": "pk_test_demo_pro", "idempotency-key": "k-1", accept: "*/*" };
  const req = {
    method: route.method.toUpperCase(),
    url: path,
    headers,
    rawHeaders: Object.entries(headers).flat(),
    socket: { remoteAddress: "127.0.0.1" },
    complete: true,
    once() {},
    on() {},
  };
  const ctx = new RequestContext(req as never, { once() {}, on() {} } as never);
  ctx.route = route;
  ctx.principal = { workspaceId: "ws_DemoPro00000", plan: "pro", key: null, keyId: null, frozen: false, via: "api_key" };
  return ctx;
}

describe("stages planned per operation", () => {
  const planned: [string, Stage][] = [
    ...[billing, keys, oauth, webhooks, sse, upgradeRequired].map((f) => [f.name, f(s)] as [string, Stage]),
    // Given a responder that always answers: on an operation it keys, idempotency runs it and answers its reply.
    ["idempotency", idempotency(s, [], [() => ({ status: 299, headers: {}, body: null })])[0]!],
  ];

  it("every stage that declares its operations answers nothing on the others", () => {
    let left = 0;
    for (const [name, stage] of planned) {
      expect(stage.appliesTo, name).toBeTypeOf("function");
      for (const route of routes) {
        if (stage.appliesTo!(route)) continue;
        left++;
        expect(stage(context(route)), `${name} on ${route.operationId}`).toBeUndefined();
      }
    }
    expect(left).toBeGreaterThan(routes.length * 5); // most stages act on a few operations
  });

  it("checks every stage of the pipeline that declares its operations", () => {
    const plan = httpPipeline(s).find((st) => st.name === "perRoute") as Stage & { planned?: readonly Stage[] };
    const declaring = (plan?.planned ?? []).filter((st) => st.appliesTo).map((st) => st.name);
    expect(declaring.length).toBeGreaterThan(0);
    expect(new Set(declaring)).toEqual(new Set(planned.map(([, st]) => st.name)));
  });

  it("each declares at least one operation of the contract", () => {
    for (const [name, stage] of planned) expect(routes.some((r) => stage.appliesTo!(r)), name).toBe(true);
  });

  it("runs, for each operation, the stages that declare nothing and those that declare it, in order", () => {
    const ran: string[] = [];
    const stage = (name: string, appliesTo?: (r: Route) => boolean): Stage => Object.assign(() => void ran.push(name), appliesTo ? { appliesTo } : {});
    const [first, second] = routes;
    const plan = perRoute([stage("a"), stage("only-first", (r) => r === first), stage("b"), stage("never", () => false)]);
    expect(runStages([plan], context(first!))).toBeUndefined();
    expect(ran.splice(0)).toEqual(["a", "only-first", "b"]);
    plan(context(second!));
    expect(ran.splice(0)).toEqual(["a", "b"]);
    const answering = perRoute([stage("a"), Object.assign(() => TAKEN, {}), stage("after")]);
    expect(answering(context(first!))).toBe(TAKEN);
    expect(ran).toEqual(["a"]);
  });
});
