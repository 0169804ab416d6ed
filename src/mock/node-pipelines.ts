// The pipelines that need sockets (pipeline.ts says how each request travels them): WebSocket upgrades handed to
// ws, and the proxy's, whose stages open connections to the upstream. The Node server's only: the core
// (pipeline.ts `httpPipeline`) runs without them.
import { admission, delay } from "./pipeline.js";
import { proxyControls } from "./proxy/controls.js";
import { originFormOnly, proxyCapacity } from "./proxy/edge.js";
import { forward } from "./proxy/forward.js";
import type { Proxy } from "./proxy/proxy.js";
import { tunnel } from "./proxy/tunnel.js";
import { webSocket } from "./responders/websocket.js";
import type { Services } from "./services.js";
import type { Stage } from "./stage.js";
import { apiPrefix } from "./stages/api-prefix.js";
import { malformed, malformedUncounted } from "./stages/malformed.js";
import { ownPaths } from "./stages/own-paths.js";
import { shuttingDown } from "./stages/shutting-down.js";
import { webSocketOnly } from "./stages/websocket-only.js";

export function upgradePipeline(s: Services): Stage[] {
  return [malformed(s), shuttingDown(s), apiPrefix(s), ...delay(s), ...admission(s), webSocketOnly(s), webSocket(s)];
}

export function proxyPipeline(s: Services, p: Proxy): Stage[] {
  return [malformedUncounted(s), ownPaths(s), proxyControls(s, p), originFormOnly(), proxyCapacity(s, p), forward(s, p)];
}

/** The same edge checks as plain requests (issue 22: an absolute-form target and two Hosts were tunnelled). */
export function proxyUpgradePipeline(s: Services, p: Proxy): Stage[] {
  return [malformedUncounted(s), shuttingDown(s), originFormOnly(), proxyCapacity(s, p), tunnel(s, p)];
}
