// Stages `syncParts` and `syncWorkspace`: with the state shared by replicas (`--state postgres://…`, state-pg.ts),
// a request waits until this replica's memory holds what the database holds, so a write made through another
// replica is read here at once (read-your-writes, decision SB6), and a request that may write holds the
// workspace's lock until its change is committed (SB7). Absent from the pipeline without a shared state.
// PostgreSQL unreachable: 503 `dependency_unavailable` with Retry-After (SB9).
import { unavailable } from "../access/rate-answers.js";
import type { StageFactory } from "../pipeline/stage.js";

/** Methods that never change anything: they read, without the lock. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export const syncParts: StageFactory = (s) =>
  function syncParts() {
    return s.shared?.syncParts()?.then(() => undefined, unavailable);
  };

export const syncWorkspace: StageFactory = (s) =>
  function syncWorkspace(ctx) {
    if (!ctx.principal || !s.shared) return undefined;
    const end = ctx.res ?? ctx.upgrade?.socket;
    const ended = (release: () => void) => (!end || end.closed ? release() : end.once("close", release));
    return s.shared.syncWorkspace(ctx.principal.workspaceId, !SAFE.has(ctx.method), ended)?.then(() => undefined, unavailable);
  };
