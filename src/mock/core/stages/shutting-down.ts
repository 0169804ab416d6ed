// Stage `shuttingDown` (WebSocket upgrades): no new socket once the gateway drains; 503. (A plain request is still
// answered while draining, with `Connection: close`.)
import { json } from "../http/reply.js";
import type { StageFactory } from "../pipeline/stage.js";

export const shuttingDown: StageFactory = (s) =>
  function shuttingDown() {
    return s.live.draining ? json(503, { detail: "The gateway is shutting down." }) : undefined;
  };
