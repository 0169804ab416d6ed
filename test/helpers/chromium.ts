// The Chromium every browser test drives (test/site, test/mock/swagger-browser, test/client/browser), through
// playwright-core, never a browser downloaded by a tool:
//  1. Debian's `/usr/bin/chromium` when it is installed;
//  2. else the Chromium inside the npm package @sparticuz/chromium (a pinned devDependency: `npm ci` installs it
//     from the registry tarball, where the binary sits brotli-compressed as bin/chromium.br). It is decompressed
//     once into node_modules/.cache/, keyed by the package's version, so `npm ci` (which empties node_modules)
//     also drops a stale copy. The package's own `executablePath()` is not used: it unpacks to a fixed /tmp/chromium
//     shared with anything else on the machine, and answers that path while another process is still writing it
//     (vitest runs the three browser test files in parallel). Here each process writes its own temporary file and
//     renames it into place, which is atomic.
// With neither, launching fails (the tests fail, never skip) with a message saying what is missing.
import fs from "node:fs";
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { chromium, type BrowserContext } from "playwright-core";
import { ROOT } from "../../scripts/lib/paths.js";

export const SYSTEM_CHROMIUM = "/usr/bin/chromium";
export const NPM_CHROMIUM_PACKAGE = "@sparticuz/chromium";
const CACHE = path.join(ROOT, "node_modules/.cache/avt-chromium");

/**
 * Headless, no sandbox (containers run as root), and nothing that talks to the network by itself: no background
 * networking, component updates, sync, first-run pings, domain-reliability reports or hyperlink-auditing pings.
 * @sparticuz/chromium's own default `args` are not used: they are for serverless hosts and include
 * `--disable-web-security` and `--allow-running-insecure-content`, which would switch off the CSP and CORS checks the
 * site tests exist to make; this build runs fine without any of them here.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-domain-reliability",
  "--no-pings",
];

export interface ChromiumExecutable {
  path: string;
  /** Where it came from: Debian's package, or the npm package (with its version). */
  source: string;
}

export interface NpmChromium {
  dir: string;
  version: string;
}

/** The npm package's directory and version, or null when it is not installed. */
export function npmPackage(): NpmChromium | null {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(NPM_CHROMIUM_PACKAGE);
  } catch {
    return null;
  }
  // The entry point is <package>/build/cjs/index.cjs; package.json is not among the package's exports.
  const dir = path.resolve(path.dirname(entry), "../..");
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
  return { dir, version };
}

/** Decompresses the npm package's bin/chromium.br once per version; later calls answer the cached binary. */
export async function unpackNpmChromium(pkg: NpmChromium, cache = CACHE): Promise<string> {
  const target = path.join(cache, pkg.version, "chromium");
  if (fs.existsSync(target)) return target;
  const source = path.join(pkg.dir, "bin/chromium.br");
  if (!fs.existsSync(source)) throw new Error(`${NPM_CHROMIUM_PACKAGE} ${pkg.version} has no bin/chromium.br (is this an x64 Linux machine?)`);
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.${Date.now()}.partial`;
  try {
    await pipeline(fs.createReadStream(source), zlib.createBrotliDecompress(), fs.createWriteStream(partial, { mode: 0o755 }));
    await fsp.rename(partial, target);
  } finally {
    await fsp.rm(partial, { force: true });
  }
  return target;
}

/**
 * The Chromium to drive: Debian's if installed, else the npm package's (unpacked on first use). Throws, saying how
 * to get one, when there is neither. `systemPath` and `pkg` are parameters for the tests of this choice.
 */
export async function chromiumExecutable(
  systemPath = SYSTEM_CHROMIUM,
  pkg: NpmChromium | null = npmPackage(),
): Promise<ChromiumExecutable> {
  if (fs.existsSync(systemPath)) return { path: systemPath, source: "Debian's chromium package" };
  if (pkg && process.platform === "linux" && process.arch === "x64") {
    return { path: await unpackNpmChromium(pkg), source: `${NPM_CHROMIUM_PACKAGE} ${pkg.version}` };
  }
  throw new Error(
    `No Chromium for the browser tests: ${systemPath} is not installed and ` +
      (pkg ? `${NPM_CHROMIUM_PACKAGE} ships a binary for x64 Linux only (this is ${process.platform} ${process.arch})` : `${NPM_CHROMIUM_PACKAGE} is not installed (run npm ci)`) +
      `. Install Debian's (as root): apt-get update && apt-get install -y chromium`,
  );
}

/** A headless Chromium with a fresh profile in a scratch folder; `close()` ends it and removes the profile. */
export async function launchChromiumContext(options: { viewport?: { width: number; height: number } } = {}): Promise<{
  context: BrowserContext;
  executable: ChromiumExecutable;
  close: () => Promise<void>;
}> {
  const executable = await chromiumExecutable();
  const profile = await fsp.mkdtemp(path.join(os.tmpdir(), "avt-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: executable.path, headless: true, args: CHROMIUM_ARGS, ...options });
  } catch (e) {
    await fsp.rm(profile, { recursive: true, force: true });
    throw new Error(`Chromium (${executable.source}, ${executable.path}) did not start: ${(e as Error).message}`, { cause: e });
  }
  return {
    context,
    executable,
    close: async () => {
      await context.close();
      await fsp.rm(profile, { recursive: true, force: true });
    },
  };
}
