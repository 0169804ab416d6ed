// Shared by the site tests: build the site into a scratch folder, serve it, and drive Chromium
// (test/helpers/chromium.ts: Debian's when installed, else the one inside the @sparticuz/chromium npm package).
import fs from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { isLoopbackUrl } from "../../../scripts/publish/build-site.js";
import { ROOT } from "../../../scripts/lib/paths.js";
import { launchChromiumContext } from "../../helpers/chromium.js";

/** Screenshots of the rendered pages (git-ignored). */
export const ARTEFACTS = path.join(ROOT, "test-results/site");

export async function scratchDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fsp.rm(dir, { recursive: true, force: true }) };
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".json": "application/json",
  ".yaml": "application/yaml; charset=utf-8",
};

/**
 * A plain static host for a folder on 127.0.0.1 (free port): files and their content types, nothing else — in
 * particular no CSP header, so the pages' own <meta> CSP is what the browser enforces, as on GitHub Pages.
 * Hand-written: no static-file server is among the project's packages, and this is all a static host does.
 */
export async function serveDir(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = path.join(root, pathname.endsWith("/") ? pathname + "index.html" : pathname);
    if (!file.startsWith(root + path.sep)) return void res.writeHead(403).end();
    fs.readFile(file, (err, body) => {
      if (err) return void res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Stays on this machine: loopback, or no network at all (data:, blob:, about:). */
export const isLoopback = (url: string): boolean => /^(data|blob|about):/i.test(url) || isLoopbackUrl(url);

export interface Browser {
  context: BrowserContext;
  /** Every URL any page asked for (requests and WebSockets), in order. */
  requests: string[];
  /** Those that were not on loopback (each aborted before it left the machine). */
  outside: string[];
  /** Console errors of every page (CSP violations, failed scripts, ...). */
  consoleErrors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Chromium, headless, with a fresh profile; never a downloaded browser. Fails (not skips) when there is no
 * Chromium. Every request is recorded; anything off loopback is aborted and recorded in `outside`.
 */
export async function launchChromium(): Promise<Browser> {
  const launched = await launchChromiumContext({ viewport: { width: 1280, height: 900 } });
  const { context } = launched;
  const b: Browser = {
    context,
    requests: [],
    outside: [],
    consoleErrors: [],
    newPage: async () => {
      const page = await context.newPage();
      page.on("console", (m) => {
        if (m.type() === "error") b.consoleErrors.push(`${page.url()}: ${m.text()}`);
      });
      page.on("websocket", (ws) => {
        b.requests.push(ws.url());
        if (!isLoopback(ws.url())) b.outside.push(ws.url());
      });
      return page;
    },
    close: launched.close,
  };
  // Every request a page makes, including those its CSP then blocks (they are still attempts to reach out).
  context.on("request", (r) => {
    b.requests.push(r.url());
    if (!isLoopback(r.url())) b.outside.push(r.url());
  });
  // And nothing off loopback goes out on the wire, whatever the test asserts later.
  await context.route("**/*", (route) => (isLoopback(route.request().url()) ? route.continue() : route.abort("blockedbyclient")));
  return b;
}

/** Swagger UI: "Authorize" one security scheme with a value (API key, bearer token), then close the dialog. */
export async function authorize(page: Page, scheme: string, value: string): Promise<void> {
  await page.locator("button.authorize").first().click();
  const box = page.locator(".modal-ux .auth-container", { has: page.locator("h4", { hasText: scheme }) });
  await box.locator("input").fill(value);
  await box.locator("button.authorize").click();
  await page.locator(".modal-ux button.btn-done").first().click();
}

/**
 * Swagger UI: open an operation, "Try it out", "Execute". Resolves with the status code shown and the text of the
 * live response's details (body and "Response headers" panel), lowercased.
 */
export async function tryItOut(page: Page, method: string, urlPath: string): Promise<{ status: string; details: string }> {
  const block = page.locator(`.opblock-${method.toLowerCase()}:has(.opblock-summary-path[data-path="${urlPath}"])`).first();
  await block.locator(".opblock-summary-control").click();
  await block.locator("button.try-out__btn").click();
  await block.locator("button.execute").click();
  const row = block.locator(".live-responses-table tbody tr.response").first();
  await row.waitFor({ timeout: 15_000 });
  await block.getByText("Response headers").first().scrollIntoViewIfNeeded();
  return {
    status: (await row.locator(".response-col_status").innerText()).trim(),
    details: (await row.locator(".response-col_description").innerText()).toLowerCase(),
  };
}
