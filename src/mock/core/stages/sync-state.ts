// Stages `syncParts` and `syncWorkspace`: with the state shared by replicas (`--state postgres://…`, state-pg.ts),
// a request waits until this replica's memory holds what the database holds, so a write made through another
// replica is read here at once (read-your-writes, decision SB6), and a request that may write holds the
// workspace's lock until its change is committed (SB7). Absent from the pipeline without a shared state.
// PostgreSQL unreachable: 503 `dependency_unavailable` with Retry-After (SB9). With ownership (SB29), a workspace
// another replica owns has its request forwarded there (Services.forward, the home's).
import { unavailable } from "../access/rate-answers.js";
import type { Outcome, StageFactory } from "../pipeline/stage.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Services } from "../pipeline/services.js";
import { DependencyUnavailable } from "../state/shared-state.js";

/** Methods that never change anything: they read, without the lock. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export const syncParts: StageFactory = (s) =>
  function syncParts(ctx) {
    const key = ctx.req.headers[s.auth.header];
    return s.shared?.syncParts(typeof key === "string" ? key : undefined)?.then(() => undefined, unavailable);
  };

export const syncWorkspace: StageFactory = (s) =>
  function syncWorkspace(ctx) {
    if (!ctx.principal || !s.shared) return undefined;
    const end = ctx.res ?? ctx.upgrade?.socket;
    const ended = (release: () => void) => (!end || end.closed ? release() : end.once("close", release));
    const id = ctx.principal.workspaceId;
    return s.shared.syncWorkspace(id, !SAFE.has(ctx.method), ended)?.then((owner) => (typeof owner === "string" ? forwarded(s, ctx, id, owner) : undefined), unavailable);
  };

/** Another replica owns the workspace (SB29): the request goes there, its answer comes back as it is. */
function forwarded(s: Services, ctx: RequestContext, ws: string, owner: string): Outcome | Promise<Outcome> {
  if (!s.forward) return unavailable(new DependencyUnavailable("replica", new Error(`workspace ${ws} is owned by ${owner}, and this gateway cannot forward`)));
  return (s.forward(ctx, ws, owner) as Promise<Outcome>).catch(unavailable);
}
