// Stage `frozen`: every request made in a frozen workspace answers 403 (spec rule 6), on any path, after it has
// been counted.
import { MESSAGES } from "../access/auth.js";
import type { StageFactory } from "../pipeline/stage.js";

export const frozen: StageFactory = () =>
  function frozen(ctx) {
    return ctx.principal!.frozen ? ctx.json(403, { detail: MESSAGES.frozen, error: "workspace_frozen" }) : undefined;
  };
