// The pipelines that need sockets (pipeline.ts says how each request travels them): WebSocket upgrades handed to
// ws, and the proxy's, whose stages open connections to the upstream. The Node server's only: the core
// (pipeline.ts `httpPipeline`) runs without them.
import { requestId } from "../../core/pipeline/request-id.js";
import { admission, delay } from "../../core/pipeline/pipeline.js";
import { proxyControls } from "../../proxy/controls.js";
import { originFormOnly, proxyCapacity } from "../../proxy/edge.js";
import { forward } from "../../proxy/forward.js";
import type { Proxy } from "../../proxy/proxy.js";
import { tunnel } from "../../proxy/tunnel.js";
import { webSocket } from "./websocket/websocket.js";
import type { Services } from "../../core/pipeline/services.js";
import type { Stage } from "../../core/pipeline/stage.js";
import { apiPrefix } from "../../core/stages/api-prefix.js";
import { malformed, malformedUncounted } from "../../core/stages/malformed.js";
import { ownPaths } from "../../core/stages/own-paths.js";
import { shuttingDown } from "../../core/stages/shutting-down.js";
import { webSocketOnly } from "../../core/stages/websocket-only.js";

export function upgradePipeline(s: Services): Stage[] {
  return [requestId(s), malformed(s), shuttingDown(s), apiPrefix(s), ...delay(s), ...admission(s), webSocketOnly(s), webSocket(s)];
}

export function proxyPipeline(s: Services, p: Proxy): Stage[] {
  return [requestId(s), malformedUncounted(s), ownPaths(s), proxyControls(s, p), originFormOnly(), proxyCapacity(s, p), forward(s, p)];
}

/** The same edge checks as plain requests (issue 22: an absolute-form target and two Hosts were tunnelled). */
export function proxyUpgradePipeline(s: Services, p: Proxy): Stage[] {
  return [requestId(s), malformedUncounted(s), shuttingDown(s), originFormOnly(), proxyCapacity(s, p), tunnel(s, p)];
}
