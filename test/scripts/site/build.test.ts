// `npm run build:site`: what dist/site/ holds, that it is offline by construction, and that the mock serves the
// very same bytes. (The pages in a real browser: browser.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { buildSite, originAllowed, outsideReferences, SiteError, type SiteResult } from "../../../scripts/publish/build-site.js";
import { GENERATED, ROOT } from "../../../scripts/lib/paths.js";
import { SWAGGER_ASSETS, SWAGGER_ASSETS_DIR, SWAGGER_INIT_FILE, SWAGGER_UI_DIR } from "../../../src/mock/homes/node/swagger.js";
import { doc, operations } from "../../helpers/contract.js";
import { startGateway, type TestGateway } from "../../helpers/mock.js";
import { scratchDir } from "./helpers.js";

const run = promisify(execFile);

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let site: SiteResult;
let mock: TestGateway;

beforeAll(async () => {
  scratch = await scratchDir("site-build-");
  // Both settle before anything throws, so a failure leaves nothing running or writing after afterAll.
  const [built, started] = await Promise.allSettled([buildSite({ outDir: path.join(scratch.dir, "site") }), startGateway()]);
  if (started.status === "fulfilled") mock = started.value;
  if (built.status === "rejected") throw built.reason;
  if (started.status === "rejected") throw started.reason;
  site = built.value;
}, 60_000);

afterAll(async () => {
  await mock?.close();
  await scratch?.remove();
});

const read = (name: string) => fs.readFile(path.join(site.outDir, name));
const text = async (name: string) => (await read(name)).toString("utf8");
const exists = (p: string) => fs.stat(p).then(() => true, () => false);

/** The `content` of a page's CSP <meta>, directive → sources. */
async function metaCsp(page: string): Promise<Record<string, string[]>> {
  const html = await text(page);
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  expect(m, `${page} has no CSP <meta>`).not.toBeNull();
  const csp = m![1]!.replace(/&#39;/g, "'");
  return Object.fromEntries(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));
}

/** The relative URLs a page loads (src/href of script, link, img), which must all be files of the site. */
function loadedUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link|img)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

describe("npm run build:site", () => {
  it("publishes generated/openapi.yaml and openapi.json byte for byte", async () => {
    for (const f of ["openapi.yaml", "openapi.json"]) {
      expect((await read(f)).equals(await fs.readFile(path.join(GENERATED, f))), `${f} differs from generated/${f}`).toBe(true);
    }
    expect(site.operations).toBe(operations().length);
  });

  it("copies spec/asyncapi.yaml when the contract has one, and only then", async () => {
    const source = path.join(ROOT, "spec/asyncapi.yaml");
    const published = path.join(site.outDir, "asyncapi.yaml");
    if (await exists(source)) expect((await fs.readFile(published)).equals(await fs.readFile(source))).toBe(true);
    else expect(await exists(published)).toBe(false);
  });

  it("self-hosts swagger-ui-dist: every file the viewer loads is in the site, identical to the installed package", async () => {
    const html = await text("swagger.html");
    const urls = loadedUrls(html);
    expect(urls.length).toBeGreaterThanOrEqual(Object.keys(SWAGGER_ASSETS).length + 1);
    for (const u of urls) expect(await exists(path.join(site.outDir, u)), `swagger.html loads ${u}, which the site lacks`).toBe(true);
    for (const name of Object.keys(SWAGGER_ASSETS)) {
      expect((await read(`${SWAGGER_ASSETS_DIR}/${name}`)).equals(await fs.readFile(path.join(SWAGGER_UI_DIR, name))), name).toBe(true);
    }
  });

  it("the viewer runs no inline script, no validator, and 'Try it out' targets the contract's loopback server", async () => {
    const html = await text("swagger.html");
    expect([...html.matchAll(/<script\b([^>]*)>/g)].every((m) => /\ssrc="/.test(m[1]!)), "inline <script> in swagger.html").toBe(true);
    const init = await text(`${SWAGGER_ASSETS_DIR}/${SWAGGER_INIT_FILE}`);
    expect(init).toMatch(/validatorUrl: null/);
    const loopback = doc.servers.find((s: { url: string }) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(s.url));
    expect(site.server.url).toBe(loopback.url);
    expect(init).toContain(JSON.stringify(loopback.url));
  });

  it("swagger.html's CSP: scripts from the site only, requests to the site, the contract's servers and loopback on any port", async () => {
    const csp = await metaCsp("swagger.html");
    expect(csp["default-src"]).toEqual(["'none'"]);
    expect(csp["script-src"]).toEqual(["'self'"]);
    const origins = (doc.servers as Array<{ url: string; variables?: Record<string, { default: string }> }>).map((s) =>
      new URL(s.url.replace(/\{(\w+)\}/g, (_, v: string) => s.variables![v]!.default)).origin,
    );
    for (const o of [...origins, "http://127.0.0.1:54321", "http://localhost:3000"]) {
      expect(originAllowed(o, csp["connect-src"]!), `connect-src does not allow ${o}`).toBe(true);
    }
    expect(originAllowed("https://cdn.jsdelivr.net", csp["connect-src"]!)).toBe(false);
    expect(csp["frame-ancestors"], "frame-ancestors is ignored in a <meta> CSP (and logs an error)").toBeUndefined();
  });

  it("reference.html (redocly build-docs --inlineBundle) references nothing outside, and its CSP keeps it that way", async () => {
    const html = await text("reference.html");
    expect(outsideReferences(html)).toEqual([]);
    expect(html).not.toMatch(/cdn\.redoc\.ly|fonts\.googleapis|fonts\.gstatic/);
    expect(html).toMatch(/"disableTelemetry":true/);
    const csp = await metaCsp("reference.html");
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["script-src"]!.every((s) => s.startsWith("'sha256-")), "reference.html allows scripts other than its own, by hash").toBe(true);
  });

  it("index.html links every published document, and each link is a file of the site", async () => {
    const html = await text("index.html");
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!).sort();
    const published = (await fs.readdir(site.outDir)).filter((f) => f !== "index.html" && f !== SWAGGER_ASSETS_DIR).sort();
    expect(links).toEqual(published);
    for (const u of loadedUrls(html)) expect(await exists(path.join(site.outDir, u)), u).toBe(true);
    await metaCsp("index.html");
  });

  it("the mock gateway serves the same bytes: /swagger.html, /openapi.yaml and the swagger-ui files", async () => {
    const same = async (urlPath: string, file: string) => {
      const res = await fetch(mock.url + urlPath);
      expect(res.status, urlPath).toBe(200);
      const served = Buffer.from(await res.arrayBuffer());
      expect(served.equals(await read(file)), `the mock's ${urlPath} differs from dist/site/${file}`).toBe(true);
    };
    await same("/swagger.html", "swagger.html");
    await same("/openapi.yaml", "openapi.yaml");
    for (const name of Object.keys(SWAGGER_ASSETS)) await same(`/${SWAGGER_ASSETS_DIR}/${name}`, `${SWAGGER_ASSETS_DIR}/${name}`);
  });
});

describe("build:site refuses bad input and keeps the previous site", () => {
  it("a --server-url the page's CSP would block: exit 1, clear message, the existing site untouched", async () => {
    const before = await read("index.html");
    const err = await run(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/publish/build-site.ts", "--out", site.outDir, "--server-url", "https://staging.example.com"], { cwd: ROOT }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(/https:\/\/staging\.example\.com is not allowed by the page's Content-Security-Policy/);
    expect((await read("index.html")).equals(before)).toBe(true);
  }, 30_000);

  it("an output folder that is not an earlier site build is never replaced", async () => {
    const dir = path.join(scratch.dir, "not-a-site");
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, "notes.txt"), "keep me");
    await expect(buildSite({ outDir: dir })).rejects.toThrow(SiteError);
    expect(await fs.readFile(path.join(dir, "notes.txt"), "utf8")).toBe("keep me");
  });

  it("a missing bundle says to run npm run generate", async () => {
    await expect(buildSite({ outDir: path.join(scratch.dir, "x"), generatedDir: path.join(scratch.dir, "nowhere") })).rejects.toThrow(/npm run generate/);
  });
});

describe("offline checks", () => {
  it("outsideReferences finds scripts, styles, fonts and images from other hosts, not links or local files", () => {
    const html = `<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto"><script src="//cdn.example/x.js"></script>
      <img src="swagger-ui/favicon-32x32.png"><a href="https://redocly.com/redoc/">Redoc</a>
      <style>@font-face{src:url(https://fonts.gstatic.com/r.woff2)} @import "https://x.example/a.css";</style>`;
    expect(outsideReferences(html).sort()).toEqual(["//cdn.example/x.js", "https://fonts.googleapis.com/css?family=Roboto", "https://fonts.gstatic.com/r.woff2", "https://x.example/a.css"]);
  });

  it("originAllowed: exact origins, and scheme://host:* for any port of that host only", () => {
    const sources = ["'self'", "https://api.analysis.invalid", "http://127.0.0.1:*"];
    expect(originAllowed("https://api.analysis.invalid/v1", sources)).toBe(true);
    expect(originAllowed("http://127.0.0.1:4010", sources)).toBe(true);
    expect(originAllowed("https://127.0.0.1:4010", sources)).toBe(false);
    expect(originAllowed("http://api.analysis.invalid", sources)).toBe(false);
    expect(originAllowed("http://127.0.0.10:4010", sources)).toBe(false);
  });
});
