// The state a gateway shares with other replicas (`--state postgres://…`, state-pg.ts, decisions SB5-SB9): what a
// request waits for before the synchronous stages run. Core (no node:* module): the Node adapter implements it.

export interface SharedState {
  /**
   * Before authentication: reads the version of the parts every workspace shares (keys, webhooks, OAuth grants)
   * and reads them again when another replica changed them. Undefined when nothing is to be waited for. With ownership
   * (SB29) the version is polled instead, and `apiKey`, the request's X-API-Key when this replica does not know it
   * (made through another replica since the last poll, or no key at all), reads the parts again at once.
   */
  syncParts(apiKey?: string): Promise<void> | undefined;
  /**
   * Once the workspace is known: a read reads the workspace's version and reads it again when stale; a write
   * (`writing`) takes the workspace's lock first, held until its change is committed or `ended` calls back. With
   * ownership (`--ownership`, SB29): nothing while this replica owns the workspace and holds it in memory; else it
   * takes the workspace's lease when free (and reads the workspace), or resolves to the base URL of the replica that
   * owns it, to which the request is forwarded (Services.forward).
   */
  syncWorkspace(id: string, writing: boolean, ended: (release: () => void) => void): Promise<void | string> | undefined;
  /** `ok` while the database answers, `down` when the last attempt to reach it failed. */
  health(): "ok" | "down";
}

/** A shared engine (Redis, PostgreSQL) failed or timed out: the request is answered 503 (`dependencyUnavailable`), nothing counted. */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: "redis" | "postgres" | "replica",
    cause: unknown,
  ) {
    super(`${dependency} is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
