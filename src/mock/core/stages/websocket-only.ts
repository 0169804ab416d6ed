// Stage `webSocketOnly` (WebSocket upgrades): only the operations that answer 101 take an upgrade; any other
// operation answers 400.
import type { StageFactory } from "../pipeline/stage.js";

export const webSocketOnly: StageFactory = () =>
  function webSocketOnly(ctx) {
    if (ctx.route.successCode === 101) return undefined;
    return ctx.json(400, { detail: `${ctx.route.template} does not accept WebSocket connections.` });
  };
