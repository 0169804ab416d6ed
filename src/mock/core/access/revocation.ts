// The open streams of each credential (issue 47, decision SH16 revised): an SSE stream or a WebSocket holds the
// credential that opened it here, and revoking that credential (`DELETE /v1/keys/{key_id}`, `POST /v1/oauth/revoke`
// of an access token or of a refresh token's grant, a grant over the cap) ends every one of them at once: SSE with
// a final `error` event, WebSocket with an `error` message and close code 1008 (the contract's policy close).

/** How an open stream is ended by a revocation: `detail` is the final `error` event's. */
export type EndStream = (detail: string) => void;

/** The `error` detail of a stream ended because its credential was revoked. */
export const REVOKED_DETAIL = {
  key: "This API key has been revoked: the stream ended. Create a new key.",
  token: "The bearer token has been revoked: the stream ended.",
} as const;

/** A credential's name here: `key:<key id>`, `jti:<access token id>` or `grant:<grant id>`. */
export type CredentialName = `key:${string}` | `jti:${string}` | `grant:${string}`;

export class OpenStreams {
  private readonly byCredential = new Map<string, Set<EndStream>>();

  /** Registers a stream under each name of its credential; the returned function forgets it (call it on close). */
  hold(names: readonly CredentialName[], end: EndStream): () => void {
    for (const n of names) {
      let set = this.byCredential.get(n);
      if (!set) this.byCredential.set(n, (set = new Set()));
      set.add(end);
    }
    return () => {
      for (const n of names) {
        const set = this.byCredential.get(n);
        if (!set) continue;
        set.delete(end);
        if (!set.size) this.byCredential.delete(n);
      }
    };
  }

  /** Ends every stream opened by `name`. */
  revoke(name: CredentialName): void {
    const set = this.byCredential.get(name);
    if (!set) return;
    this.byCredential.delete(name);
    const detail = name.startsWith("key:") ? REVOKED_DETAIL.key : REVOKED_DETAIL.token;
    for (const end of [...set]) end(detail);
  }

  /** How many streams are held (for tests and /health-like views). */
  get size(): number {
    return new Set([...this.byCredential.values()].flatMap((s) => [...s])).size;
  }
}
