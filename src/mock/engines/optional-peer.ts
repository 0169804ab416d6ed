// The mock package's optional peers (better-sqlite3 for --state FILE, pg for --state postgres://, ioredis for
// --redis: scripts/publish/build-packages.ts lists them): loaded with `require` when a flag asks for one, never bundled, so
// a memory-only mock needs none. Missing, the error says which flag needs it and the package to install.
import { createRequire } from "node:module";

/**
 * The module `name`, or `fail` of "`what` through `name`, which is not installed: npm install `name`". A module the
 * package itself cannot find (one of its own dependencies) is thrown as it is: installing `name` would not help.
 */
export function optionalPeer<T>(name: string, what: string, fail: (message: string) => Error): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== "MODULE_NOT_FOUND" || !err.message.includes(`'${name}'`)) throw e;
    throw fail(`${what} through ${name}, which is not installed: npm install ${name}`);
  }
}
