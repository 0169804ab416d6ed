// `npm run build:site`: the static documentation site, dist/site/, ready for any static host.
//
//   index.html          links to everything below
//   swagger.html        the interactive viewer, byte for byte the page the mock serves at /swagger.html
//   swagger-ui/         self-hosted swagger-ui-dist files and the viewer's init script (no CDN, no inline script)
//   reference.html      the reference made by `redocly build-docs --inlineBundle` (one file, offline)
//   openapi.yaml/.json  byte copies of generated/
//   asyncapi.yaml       a copy of spec/asyncapi.yaml, when the contract has one
//
// Every HTML page carries its Content-Security-Policy in a <meta> tag, so it holds on hosts that cannot set headers.
// The site is built in a scratch folder next to the output and swapped in only when every step succeeded.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  escapeHtml,
  readSwaggerAsset,
  swaggerInitJs,
  swaggerPage,
  tryItOutOrigins,
  SWAGGER_ASSETS,
  SWAGGER_ASSETS_DIR,
  SWAGGER_INIT_FILE,
} from "../../src/mock/homes/node/swagger.js";
import { HTTP_METHODS } from "../../src/mock/core/contract/contract-build.js";
import { GENERATED, ROOT } from "../lib/paths.js";
import { redocly } from "../lib/redocly.js";

export const SITE_DIR = path.join(ROOT, "dist/site");
export const ASYNCAPI_SOURCE = path.join(ROOT, "spec/asyncapi.yaml");

export class SiteError extends Error {}

export interface SiteOptions {
  /** Output folder (default dist/site). Replaced as a whole. */
  outDir?: string;
  /** Folder holding the bundle, openapi.yaml and openapi.json (default generated/). */
  generatedDir?: string;
  /** AsyncAPI description copied when it exists (default spec/asyncapi.yaml). */
  asyncapiPath?: string;
  /**
   * Server "Try it out" calls, listed first in the viewer. Default: the contract's loopback server (the mock of
   * `npm start`). Its origin must be one the page's CSP allows (see tryItOutOrigins).
   */
  serverUrl?: string;
}

export interface SiteFile {
  name: string;
  bytes: number;
}

export interface SiteResult {
  outDir: string;
  files: SiteFile[];
  operations: number;
  tags: number;
  webhooks: number;
  server: { url: string; description: string };
  ms: number;
}

interface Doc {
  info?: { title?: string; version?: string };
  servers?: Array<{ url: string; description?: string; variables?: Record<string, { default?: string }> }>;
  tags?: Array<{ name: string }>;
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, unknown>;
}

/** Number of operations under `paths` (webhooks not counted), as the viewer renders them. */
export function countOperations(doc: Doc): number {
  return Object.values(doc.paths ?? {}).reduce((n, item) => n + HTTP_METHODS.filter((m) => item[m]).length, 0);
}

/** `'sha256-…'` source of an inline script or style, for a CSP that allows exactly that text and nothing else. */
export function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** Does a CSP source list (origins, `scheme://host:*` for any port) allow requests to `url`'s origin? */
export function originAllowed(url: string, sources: readonly string[]): boolean {
  const u = new URL(url);
  return sources.some((s) => s === u.origin || (s.endsWith(":*") && s.slice(0, -2) === `${u.protocol}//${u.hostname}`));
}

/** Is this URL's host the machine itself (where a mock gateway runs)? */
export function isLoopbackUrl(url: string): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
}

/** The server "Try it out" targets: `serverUrl` when given, else the contract's loopback server; either way one the page's CSP allows. */
export function tryItOutServer(doc: Doc, serverUrl?: string): { url: string; description: string } {
  const servers = doc.servers ?? [];
  let server: { url: string; description: string };
  if (serverUrl === undefined) {
    const local = servers.find((s) => /^https?:\/\//i.test(s.url) && isLoopbackUrl(s.url));
    if (!local) throw new SiteError("The contract lists no loopback server (http://127.0.0.1:…) for \"Try it out\"; pass --server-url.");
    server = { url: local.url, description: local.description ?? "Local mock gateway" };
  } else {
    let parsed: URL;
    try {
      parsed = new URL(serverUrl);
    } catch {
      throw new SiteError(`--server-url ${JSON.stringify(serverUrl)} is not an absolute URL (e.g. http://127.0.0.1:4010).`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new SiteError(`--server-url must be http(s), not ${parsed.protocol}`);
    const url = serverUrl.replace(/\/+$/, "");
    server = { url, description: servers.find((s) => s.url === url)?.description ?? "Set at build time (--server-url)" };
  }
  const allowed = tryItOutOrigins(doc);
  if (!originAllowed(server.url, allowed)) {
    throw new SiteError(
      `The "Try it out" server ${new URL(server.url).origin} is not allowed by the page's Content-Security-Policy (connect-src ${allowed.join(" ")}). ` +
        "Add the server to the contract's `servers` (spec/openapi.yaml) or use a loopback URL.",
    );
  }
  return server;
}

/** `<script src>`, `<link href>`, `<img src>`… or CSS `url()`/`@import` pointing off the page's own origin. */
export function outsideReferences(html: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /<(?:script|link|img|iframe|source|audio|video|embed|object|track|image|use)\b[^>]*?\s(?:src|href|data|srcset|poster)\s*=\s*["']?\s*((?:[a-z][a-z0-9+.-]*:)?\/\/[^"'\s>]+)/gi,
    /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /@import\s+(?:url\()?\s*["']?((?:https?:)?\/\/[^"')\s;]+)/gi,
  ];
  for (const re of patterns) for (const m of html.matchAll(re)) found.add(m[1]!);
  return [...found];
}

/** An SVG as a `data:` URL (allowed by img-src, loaded from nowhere). */
function svgDataUrl(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const wordmark = (text: string, width: number) =>
  svgDataUrl(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16">` +
      `<text x="0" y="12.5" font-family="system-ui,sans-serif" font-size="13" font-weight="600" fill="#0044d4">${text}</text></svg>`,
  );

/**
 * Redoc CE 3 renders an "API docs by" footer whose logo it loads from its CDN at run time, whatever the options.
 * The site swaps those two images for local `data:` wordmarks; the browser test fails if Redoc reaches out again.
 */
const REDOC_CDN_IMAGES: Record<string, string> = {
  "https://cdn.redoc.ly/redoc/logo-mini-full.svg": wordmark("Redocly", 56),
  "https://cdn.redoc.ly/redoc/logo-mini.svg": wordmark("R", 12),
};

/**
 * Adds a CSP <meta> to the Redoc page: its inline scripts by hash, no other script, requests to the page's own
 * origin only. So the reference cannot reach out even if a later Redoc turns telemetry or web fonts back on.
 */
function lockDownReference(html: string): string {
  // The HTML parser ends a script at the first `</script`, exactly as this expression does.
  const scripts = [...html.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script/gi)].map((m) => cspHash(m[1]!));
  const csp = [
    "default-src 'none'",
    `script-src ${[...new Set(scripts)].join(" ")}`,
    // Redoc (styled-components) writes <style> elements at run time.
    "style-src 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const at = html.search(/<meta charset=[^>]*>/i);
  if (at < 0) throw new SiteError("redocly build-docs output has no <meta charset>: cannot place the CSP before its scripts.");
  const end = html.indexOf(">", at) + 1;
  const head = `\n  <meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">\n  <link rel="icon" type="image/png" href="${SWAGGER_ASSETS_DIR}/favicon-32x32.png" sizes="32x32">`;
  return html.slice(0, end) + head + html.slice(end);
}

async function buildReference(yamlPath: string, outFile: string, title: string): Promise<void> {
  // REDOCLY_TELEMETRY=off is set by redocly(); disableTelemetry also keeps Redoc's in-page telemetry off.
  const res = await redocly(["build-docs", yamlPath, "-o", outFile, "--inlineBundle", "--title", title, "--openapi.disableTelemetry=true"]);
  if (!res.ok) throw new SiteError(`redocly build-docs failed:\n${res.output}`);
  let html = await fs.readFile(outFile, "utf8");
  for (const [cdn, local] of Object.entries(REDOC_CDN_IMAGES)) html = html.split(cdn).join(local);
  const outside = outsideReferences(html);
  if (outside.length) throw new SiteError(`reference.html would load from outside the site: ${outside.join(", ")}`);
  await fs.writeFile(outFile, lockDownReference(html));
}

const INDEX_STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}" +
  "a{color:#0b57d0}li{margin:.4rem 0}code{background:#f1f3f4;padding:0 .25rem;border-radius:3px}";

function indexHtml(doc: Doc, server: { url: string }, hasAsyncapi: boolean, operations: number): string {
  const title = escapeHtml(doc.info?.title ?? "API");
  const csp = `default-src 'none'; style-src ${cspHash(INDEX_STYLE)}; img-src 'self'; base-uri 'none'; form-action 'none'`;
  const link = (href: string, text: string, note: string) => `      <li><a href="${href}">${text}</a> — ${note}</li>`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" type="image/png" href="${SWAGGER_ASSETS_DIR}/favicon-32x32.png" sizes="32x32">
    <style>${INDEX_STYLE}</style>
  </head>
  <body>
    <h1>${title}</h1>
    <p>Version ${escapeHtml(doc.info?.version ?? "")}: ${operations} operations, ${Object.keys(doc.webhooks ?? {}).length} webhooks.</p>
    <ul>
${[
  link("swagger.html", "Interactive viewer", `Swagger UI; “Try it out” calls <code>${escapeHtml(server.url)}</code> first`),
  link("reference.html", "Reference", "every operation, schema and webhook on one page (Redoc)"),
  link("openapi.yaml", "openapi.yaml", "the OpenAPI 3.1 description"),
  link("openapi.json", "openapi.json", "the same, as JSON"),
  ...(hasAsyncapi ? [link("asyncapi.yaml", "asyncapi.yaml", "the AsyncAPI description of the event streams")] : []),
].join("\n")}
    </ul>
  </body>
</html>
`;
}

/** Refuses to replace a folder that does not look like an earlier site build (a mistyped --out must not wipe anything). */
async function assertReplaceable(dir: string): Promise<void> {
  const entries = await fs.readdir(dir).catch(() => null);
  if (entries === null || entries.length === 0) return;
  if (!entries.includes("swagger.html") || !entries.includes("index.html")) {
    throw new SiteError(`Refusing to replace ${dir}: it is not empty and is not an earlier site build.`);
  }
}

export async function buildSite(opts: SiteOptions = {}): Promise<SiteResult> {
  const started = performance.now();
  const outDir = path.resolve(opts.outDir ?? SITE_DIR);
  const generatedDir = opts.generatedDir ?? GENERATED;
  const asyncapiPath = opts.asyncapiPath ?? ASYNCAPI_SOURCE;
  const yamlPath = path.join(generatedDir, "openapi.yaml");
  const jsonPath = path.join(generatedDir, "openapi.json");

  let doc: Doc;
  try {
    doc = JSON.parse(await fs.readFile(jsonPath, "utf8")) as Doc;
  } catch (e) {
    throw new SiteError(`Cannot read ${path.relative(ROOT, jsonPath)} (${(e as Error).message}). Run \`npm run generate\` first.`);
  }
  const server = tryItOutServer(doc, opts.serverUrl);
  await assertReplaceable(outDir);

  await fs.mkdir(path.dirname(outDir), { recursive: true });
  const work = await fs.mkdtemp(path.join(path.dirname(outDir), `.${path.basename(outDir)}-`));
  try {
    const write = (name: string, data: string | Buffer) => fs.writeFile(path.join(work, name), data);
    await fs.mkdir(path.join(work, SWAGGER_ASSETS_DIR));

    await fs.copyFile(yamlPath, path.join(work, "openapi.yaml"));
    await fs.copyFile(jsonPath, path.join(work, "openapi.json"));
    const hasAsyncapi = await fs.stat(asyncapiPath).then((s) => s.isFile(), () => false);
    if (hasAsyncapi) await fs.copyFile(asyncapiPath, path.join(work, "asyncapi.yaml"));

    await write("swagger.html", swaggerPage(doc));
    for (const name of Object.keys(SWAGGER_ASSETS)) await write(path.join(SWAGGER_ASSETS_DIR, name), readSwaggerAsset(name)!.body);
    await write(path.join(SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE), swaggerInitJs({ serverUrl: server.url, serverDescription: server.description }));

    await buildReference(yamlPath, path.join(work, "reference.html"), doc.info?.title ?? "API reference");
    const operations = countOperations(doc);
    await write("index.html", indexHtml(doc, server, hasAsyncapi, operations));

    await fs.rm(outDir, { recursive: true, force: true });
    await fs.rename(work, outDir);
    return {
      outDir,
      files: await listSite(outDir),
      operations,
      tags: doc.tags?.length ?? 0,
      webhooks: Object.keys(doc.webhooks ?? {}).length,
      server,
      ms: performance.now() - started,
    };
  } catch (e) {
    await fs.rm(work, { recursive: true, force: true });
    throw e;
  }
}

async function listSite(dir: string, base = dir): Promise<SiteFile[]> {
  const out: SiteFile[] = [];
  for (const e of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listSite(p, base)));
    else out.push({ name: path.relative(base, p), bytes: (await fs.stat(p)).size });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/publish/build-site.ts")) {
  const { values } = parseArgs({
    options: { out: { type: "string" }, "server-url": { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    console.log("npm run build:site [-- --out dist/site] [-- --server-url http://127.0.0.1:4010]");
  } else {
    try {
      const r = await buildSite({ outDir: values.out, serverUrl: values["server-url"] });
      for (const f of r.files) console.log(`  ${f.name.padEnd(36)} ${(f.bytes / 1024).toFixed(1).padStart(8)} KiB`);
      console.log(
        `build:site: ${path.relative(process.cwd(), r.outDir) || "."} — ${r.operations} operations, ${r.tags} tags, ${r.webhooks} webhooks; ` +
          `"Try it out" → ${r.server.url}; ${r.files.length} files in ${Math.round(r.ms)} ms`,
      );
    } catch (e) {
      console.error(`build:site failed; the previous site was left as it was.\n${(e as Error).message}`);
      process.exit(1);
    }
  }
}
