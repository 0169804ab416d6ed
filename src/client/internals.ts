// What the helpers kept out of the client core (streaming.ts, websocket.ts) need of a client made by createClient.
// It is attached to the client under a symbol, so those helpers can be plain functions in entry points of their
// own (`@avt/api-contract/streaming`, `/websocket`): an app that does not import them does not bundle them
// (npm run bench, "Client size").
import { createFinalURL, createQuerySerializer, defaultPathSerializer } from "openapi-fetch";
import type { Timers } from "./timers.js";
import type { ResolvedRetry } from "./options.js";
import type { WebSocketConstructor } from "./types.js";

/** `Symbol.for`, so two copies of the package (a bundle and node_modules, say) still recognise each other's clients. */
export const INTERNALS = Symbol.for("@avt/api-contract client");

export interface ClientInternals {
  /** The service root, without a trailing slash. */
  baseUrl: string;
  /** The credential for the `token` query parameter. */
  queryToken(): Promise<string>;
  timers: Timers;
  /** The client's retry policy (null: retries off), for the backoff of stream reconnects. */
  retry: ResolvedRetry | null;
  WebSocket: WebSocketConstructor | undefined;
  /** The latest response the client received, retried attempts included (for `readRateLimit(client)`). */
  latest?: Response;
}

export function internalsOf(client: object): ClientInternals {
  const internals = (client as { [INTERNALS]?: ClientInternals })[INTERNALS];
  if (!internals) throw new TypeError("expected a client made by createClient() of @avt/api-contract");
  return internals;
}

/** The absolute URL of a path template with its parameters, as openapi-fetch builds it. */
export function operationUrl(internals: ClientInternals, path: string, params: { path?: Record<string, unknown>; query?: Record<string, unknown> } = {}): string {
  return createFinalURL(path, {
    baseUrl: internals.baseUrl,
    params,
    querySerializer: createQuerySerializer(),
    pathSerializer: defaultPathSerializer,
  });
}
