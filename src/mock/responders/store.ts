// Responder `store`: the stateful mock (store/). Operations on what the contract describes as stored resources
// are answered from the workspace's store: creates keep what was sent, reads show what was written, lists page
// through it, lifecycles move it. A `Prefer` asking for another response or a named example, and operations the
// store does not keep (`/v1/query`, health), are left to the examples.
import type { Reply } from "../http/reply.js";
import { handle } from "../store/ops.js";
import { StoreError } from "../store/store.js";
import type { StageFactory } from "../stage.js";

/** Shared by every answer with a body (send() only reads a reply's headers). */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "Content-Type": "application/json" });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export const store: StageFactory = (s) =>
  function store(ctx): Reply | undefined {
    if (!ctx.principal || !ctx.wantsRealAnswer()) return undefined;
    try {
      const a = handle(s.store, { route: ctx.route, params: ctx.params, query: ctx.query, body: ctx.body, workspaceId: ctx.principal.workspaceId, scenario: ctx.scenario });
      if (!a) return undefined;
      return { status: a.status, headers: a.body ? JSON_HEADERS : NO_HEADERS, body: a.body, rate: ctx.rate };
    } catch (e) {
      if (e instanceof StoreError) return ctx.json(e.status, { detail: e.message });
      throw e;
    }
  };
