// What the core asks of the runtime it runs on, given to buildServices: the Node adapters (node-platform.ts:
// Prism loaded from node_modules, ws's WebSocket server, swagger-ui-dist's files on disk) or the browser's
// (browser.ts: none of them). The core itself imports no node:* module (test/mock/homes/browser/core.test.ts).
import type { WebSocketServer } from "ws";
import type { PrismSource } from "../contract/preferences.js";
import type { JsonSource } from "../state/json-file.js";

/** One of the viewer's assets by name, or undefined when there is none to serve. */
export type AssetReader = (name: string) => { body: Buffer; contentType: string } | undefined;

export interface Platform {
  /** Prism for answers the examples do not settle, loaded on first need (`loading(why)` is told when). */
  prism(jsonPath: string, loading: (why: string) => void): PrismSource;
  /** The server WebSocket upgrades are handed to; null where no socket is ever opened (in-process). */
  webSocketServer(): WebSocketServer | null;
  swaggerAsset: AssetReader;
  /** How fixtures are read and written as text (FixturesFormat). */
  fixtures: FixturesFormat;
}

/**
 * Fixtures as text: under Node JSON or YAML, read with yaml's parser (homes/node/fixtures-yaml.ts); in a browser JSON
 * only (json-file.ts), so yaml's parser stays out of the browser simulation (decision MC11). `read` throws
 * FixturesError naming the line and column; `write` is how the simulation turns a fixtures object into the text
 * `read` takes.
 */
export interface FixturesFormat {
  read(text: string, file: string): JsonSource;
  write(fixtures: unknown): string;
}
