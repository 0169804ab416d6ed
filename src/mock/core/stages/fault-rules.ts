// Stage `faultRules`: applies the fault rules set with `POST /__mock/faults` (faults.ts) to an admitted, valid
// request. A status rule answers in place of the mock: a documented status as `Prefer: code=` would (the examples
// answer it, after the request is otherwise handled as usual up to its responder), an edge status (502, 503, 504)
// at once. A scenario rule on a create gives the new resource that outcome, as `Prefer: scenario=` would. Costs a
// size check per request while no rule is set.
import { MOCK_NOTICE_HEADER } from "../events/webhooks.js";
import { EDGE_STATUSES } from "../controls/faults.js";
import type { StageFactory } from "../pipeline/stage.js";

/** Seconds a 503 of a fault rule asks the client to wait. */
const EDGE_RETRY_AFTER_S = 5;

export const faultRules: StageFactory = (s) =>
  function faultRules(ctx) {
    if (s.faults.size === 0) return undefined;
    const workspaceId = ctx.principal?.workspaceId;
    const status = s.faults.status(ctx.route, ctx.params, workspaceId);
    if (status !== undefined && EDGE_STATUSES.includes(status)) {
      const notice = `A fault rule (POST /__mock/faults) answered ${status}, which a proxy in front of the service may send whatever the contract documents.`;
      return ctx.json(status, { detail: `The service is unavailable (fault rule: ${status}).` }, { [MOCK_NOTICE_HEADER]: notice, ...(status === 503 ? { [s.policy.headers.retry_after]: String(EDGE_RETRY_AFTER_S) } : {}) });
    }
    if (status !== undefined) {
      ctx.prefer = { ...ctx.prefer, code: status };
      return undefined;
    }
    if (ctx.scenario === undefined) ctx.scenario = s.faults.createScenario(ctx.route, workspaceId);
    return undefined;
  };
