// Responder `upgradeRequired`: a plain GET (no upgrade) of a WebSocket operation answers 426 with
// `Upgrade: websocket` (decision E6), unless Prefer asked for another documented response.
import { only, type StageFactory } from "../pipeline/stage.js";

export const upgradeRequired: StageFactory = () =>
  only(
    function upgradeRequired(ctx) {
      if (ctx.route.successCode !== 101 || !ctx.wantsSuccess()) return undefined;
      return ctx.json(426, { detail: `${ctx.route.template} is a WebSocket endpoint: connect with ws:// (wss:// in production).` }, { Upgrade: "websocket" });
    },
    (route) => route.successCode === 101,
  );
