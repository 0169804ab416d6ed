// What the gate already worked out for the same bytes, kept by their hash (decision VG17): a parsed YAML bundle
// without a JSON twin (its document, ~0.5 s of YAML parsing; lines are found on demand by yaml-lines.ts) and
// `redocly diff`'s report on a pair of them (~1.5 s of its own process). An entry's key is the SHA-256 of everything its value is made from (the files'
// bytes, the diff config, the versions of `yaml` and the Redocly CLI, this file's format number), so an entry is
// either exactly what the work would give again or never found: nothing is ever invalidated, only left unused.
// The gate's own rules always run again (they are this repository's code, which changes more often).
//
// Entries live in `<repo>/.tmp/check-breaking/` (ignored by git), or CHECK_BREAKING_CACHE; CHECK_BREAKING_CACHE=off
// turns the cache off (the bench's cold row). A missing or unreadable entry is worked out again.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../paths.js";

/** Bumped when the shape of an entry changes, so old entries are never read as new ones. */
const FORMAT = "1";

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function cacheDir(): string | undefined {
  const env = process.env.CHECK_BREAKING_CACHE;
  if (env === "off") return undefined;
  return env ? path.resolve(env) : path.join(ROOT, ".tmp/check-breaking");
}

const versions = new Map<string, Promise<string>>();
/** `name@version` of an installed package (part of a key: another version may parse or diff otherwise). */
export function packageVersion(name: string): Promise<string> {
  let v = versions.get(name);
  if (!v) {
    v = fs
      .readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8")
      .then((t) => `${name}@${(JSON.parse(t) as { version?: string }).version ?? "?"}`)
      .catch(() => `${name}@?`);
    versions.set(name, v);
  }
  return v;
}

/**
 * The value kept under `kind` and the hash of `parts`, or `make()`'s, kept for next time. Writing is atomic
 * (a temporary file renamed), so gates running side by side never read half an entry.
 */
export async function cached<T>(kind: string, parts: string[], make: () => Promise<T>): Promise<T> {
  const dir = cacheDir();
  if (!dir) return make();
  const file = path.join(dir, `${kind}-${sha256([FORMAT, kind, ...parts].join("\0"))}.json`);
  const hit = await fs.readFile(file, "utf8").then((t) => JSON.parse(t) as T, () => undefined);
  if (hit !== undefined) return hit;
  const value = await make();
  try {
    await fs.mkdir(dir, { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(value));
    await fs.rename(tmp, file);
  } catch {
    // A cache that cannot be written only costs the next run its time.
  }
  return value;
}
