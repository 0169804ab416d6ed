// The built site in Chromium (test/helpers/chromium.ts: Debian's or the npm package's, never a downloaded
// browser), served from a plain static server on 127.0.0.1 with "Try it out" pointed at the mock gateway on
// another loopback port (so across origins, which needs the mock's CORS). Every request the pages make is recorded; one off loopback fails the test.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { buildSite, type SiteResult } from "../../../scripts/publish/build-site.js";
import { readPolicy } from "../../../src/contract/policy.js";
import { doc, operations } from "../../helpers/contract.js";
import { startGateway, type TestGateway } from "../../helpers/mock.js";
import { ARTEFACTS, authorize, launchChromium, scratchDir, serveDir, tryItOut, type Browser } from "./helpers.js";

const DEMO_KEY = "pk_test_demo_pro";
/** A cold render of the 103 operations takes ~5 s here; leave room on a loaded CI runner. */
const BROWSER_TEST_MS = 60_000;

let chromiumReady: Promise<Browser>;
let browser: Browser;
let mock: TestGateway;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let site: SiteResult;
let host: Awaited<ReturnType<typeof serveDir>>;

beforeAll(async () => {
  chromiumReady = launchChromium();
  chromiumReady.catch(() => undefined); // awaited before every test: without Chromium each one FAILS, saying how to install it
  scratch = await scratchDir("site-browser-");
  mock = await startGateway();
  site = await buildSite({ outDir: path.join(scratch.dir, "site"), serverUrl: mock.url });
  host = await serveDir(site.outDir);
  await fs.mkdir(ARTEFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await (await chromiumReady?.catch(() => null))?.close();
  await host?.close();
  await mock?.close();
  await scratch?.remove();
});

beforeEach(async () => {
  browser = await chromiumReady;
  for (const log of [browser.requests, browser.outside, browser.consoleErrors]) log.length = 0;
});

/** Nothing left loopback and no page logged an error (a CSP violation logs one) during the test. */
function expectOfflineAndClean(): void {
  expect(browser.outside, "requests that left loopback").toEqual([]);
  expect(browser.consoleErrors, "console errors (CSP violations, failed loads)").toEqual([]);
}

async function openSwagger(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${host.url}/swagger.html`);
  await page.locator(".opblock-tag-section").first().waitFor({ timeout: 20_000 });
  // Expand every collapsed tag (with docExpansion "list" all are open already; this holds for any setting).
  const closed = page.locator(".opblock-tag-section:not(.is-open) .opblock-tag");
  for (let n = await closed.count(); n > 0; n--) await closed.first().click();
  expect(await closed.count(), "tags still collapsed").toBe(0);
  return page;
}

/** The markdown tables of info.description (rate-limit policy included), as cell texts. */
function markdownTables(md: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of md.split("\n")) {
    if (!line.startsWith("|")) {
      current = null;
      continue;
    }
    if (/^\|[\s|:-]+\|$/.test(line)) continue; // the |---|---| separator
    const cells = line.slice(1, -1).split("|").map((c) => c.trim().replace(/`/g, ""));
    if (!current) tables.push((current = []));
    current.push(cells);
  }
  return tables;
}

describe("swagger.html (static site)", () => {
  it("renders every operation, grouped by tag, and the webhooks — loading nothing from outside", async () => {
    const page = await openSwagger();
    const ops = operations();
    expect(await page.locator(".opblock-tag-section .opblock").count()).toBe(ops.length);

    const tags = await page.locator(".opblock-tag").evaluateAll((els) => els.map((e) => e.getAttribute("data-tag")));
    expect(tags).toEqual((doc.tags as Array<{ name: string }>).map((t) => t.name).filter((name) => ops.some((o) => o.op.tags?.[0] === name)));
    for (const tag of tags) {
      const inSection = page.locator(".opblock-tag-section", { has: page.locator(`.opblock-tag[data-tag="${tag}"]`) }).locator(".opblock");
      expect(await inSection.count(), `operations under tag ${tag}`).toBe(ops.filter((o) => o.op.tags?.[0] === tag).length);
    }

    const hooks = await page.locator(".webhooks .opblock-summary-path").allInnerTexts();
    expect(hooks.map((h) => h.trim()).sort()).toEqual(Object.keys(doc.webhooks).sort());

    await page.screenshot({ path: path.join(ARTEFACTS, "swagger.png"), fullPage: false });
    await page.locator(".opblock-tag-section").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTEFACTS, "swagger-tags.png"), fullPage: false });
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);

  it("shows info.description's tables, the rate-limit policy included, cell for cell", async () => {
    const page = await openSwagger();
    const expected = markdownTables(doc.info.description);
    const policy = readPolicy(doc);
    const planTable = expected.find((t) => t.slice(1).map((r) => r[0]).join() === Object.keys(policy.plans).join());
    expect(planTable, "info.description has no table of the policy's plans").toBeDefined();
    const rendered = await page.locator(".info table").evaluateAll((tables) =>
      tables.map((t) => [...t.querySelectorAll("tr")].map((tr) => [...tr.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim()))),
    );
    expect(rendered).toEqual(expected);
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);

  it("'Authorize' offers the API key and the bearer token", async () => {
    const page = await openSwagger();
    await page.locator("button.authorize").first().click();
    const dialog = page.locator(".modal-ux");
    const schemes = doc.components.securitySchemes as Record<string, { type: string; scheme?: string }>;
    for (const [name, s] of Object.entries(schemes)) {
      const box = dialog.locator(".auth-container", { has: page.locator("h4", { hasText: name }) });
      await box.first().waitFor({ timeout: 5_000 });
      expect(await box.count(), `Authorize lists ${name}`).toBe(1);
      if (s.type === "apiKey" || s.scheme === "bearer") expect(await box.locator("input").count(), `${name} takes a value`).toBe(1);
    }
    expect(Object.values(schemes).some((s) => s.type === "apiKey")).toBe(true);
    expect(Object.values(schemes).some((s) => s.type === "http" && s.scheme === "bearer")).toBe(true);
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);

  it("Try it out: Authorize with a demo key, Execute GET /v1/analyses against the mock → 200 with the X-RateLimit-* headers", async () => {
    const page = await openSwagger();
    expect(await page.locator(".servers select").inputValue(), "the mock is the first server").toBe(mock.url);
    const apiKeyScheme = Object.entries<{ type: string; in: string }>(doc.components.securitySchemes).find(([, s]) => s.type === "apiKey" && s.in === "header")![0];
    await authorize(page, apiKeyScheme, DEMO_KEY);

    const { status, details } = await tryItOut(page, "get", "/v1/analyses");
    expect(status).toBe("200");
    const policy = readPolicy(doc);
    for (const [field, name] of Object.entries(policy.headers)) {
      if (field === "retry_after") continue; // only on 429
      expect(details, `the response headers panel shows ${name} (the mock must expose it to CORS)`).toMatch(new RegExp(`${name.toLowerCase()}: \\d+`));
    }
    expect(details).toMatch(new RegExp(`${policy.headers.limit.toLowerCase()}: ${policy.plans.pro!.requests_per_minute}\\b`));
    expect(browser.requests.filter((u) => u.startsWith(`${mock.url}/v1/analyses`)), "sent across origins to the mock").toHaveLength(1);

    await page.screenshot({ path: path.join(ARTEFACTS, "swagger-try-it-out.png"), fullPage: false });
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);
});

describe("reference.html and index.html (static site)", () => {
  it("the Redoc reference renders every tag, offline, under its CSP", async () => {
    const page = await browser.newPage();
    await page.goto(`${host.url}/reference.html`);
    const labels = page.locator('[data-component-name="Menu/MenuItem"]');
    await labels.first().waitFor({ timeout: 20_000 });
    const texts = (await labels.allInnerTexts()).map((t) => t.trim());
    for (const tag of doc.tags as Array<{ name: string }>) expect(texts, `the reference lists tag ${tag.name}`).toContain(tag.name);
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: path.join(ARTEFACTS, "reference.png"), fullPage: false });
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);

  it("index.html links resolve on the static host", async () => {
    const page = await browser.newPage();
    await page.goto(`${host.url}/index.html`);
    const hrefs = await page.locator("a").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(hrefs.length).toBeGreaterThanOrEqual(4);
    for (const href of hrefs) expect((await page.request.get(href)).status(), href).toBe(200);
    await page.close();
    expectOfflineAndClean();
  }, BROWSER_TEST_MS);
});
