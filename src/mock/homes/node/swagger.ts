// The viewer's assets read from the installed swagger-ui-dist (the Node adapter of swagger-page.ts, which has the
// page, its CSP and its init script).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { SWAGGER_ASSETS } from "../../core/contract/swagger-page.js";

export * from "../../core/contract/swagger-page.js";

const require = createRequire(import.meta.url);

/** Folder of the installed swagger-ui-dist. */
export const SWAGGER_UI_DIR: string = path.dirname(require.resolve("swagger-ui-dist/package.json"));

/** Reads one of SWAGGER_ASSETS (undefined for any other name: nothing else of node_modules is served). */
export function readSwaggerAsset(name: string): { body: Buffer; contentType: string } | undefined {
  const contentType = SWAGGER_ASSETS[name];
  if (!contentType || !Object.hasOwn(SWAGGER_ASSETS, name)) return undefined;
  return { body: fs.readFileSync(path.join(SWAGGER_UI_DIR, name)), contentType };
}

