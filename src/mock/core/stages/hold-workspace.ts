// Stage `holdWorkspace`: an admitted request holds its workspace in memory until its answer is over (the response,
// or for a WebSocket the socket, closes), so with --state the store never unloads it mid-request (decision DB12):
// the request's Idempotency-Key answer and records land in the workspace the store keeps, and an open event stream's
// analysis keeps moving. Nothing is loaded here (after authentication: a workspace costs nothing before it).
import type { StageFactory } from "../pipeline/stage.js";

export const holdWorkspace: StageFactory = (s) =>
  function holdWorkspace(ctx) {
    if (!ctx.principal) return undefined;
    const release = s.store.hold(ctx.principal.workspaceId);
    if (!release) return undefined; // in memory alone: nothing leaves, nothing to hold
    const end = ctx.res ?? ctx.upgrade?.socket;
    if (!end || end.closed) release();
    else end.once("close", release);
    return undefined;
  };
